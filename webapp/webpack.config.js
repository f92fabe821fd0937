// Production/development build of the React shell. Django serves the output under /static/.
const path = require('path');
const HtmlWebpackPlugin = require('html-webpack-plugin');

module.exports = (_env, argv) => {
  const isProduction = argv.mode !== 'development';
  return {
    mode: isProduction ? 'production' : 'development',
    context: __dirname,
    entry: { main: './src/main.tsx' },
    output: {
      path: path.resolve(__dirname, 'dist'),
      publicPath: '/static/',
      // Content hashes let Django serve bundles with far-future cache headers.
      filename: '[name].[contenthash].js',
      chunkFilename: '[name].[contenthash].js',
      clean: true,
    },
    devtool: isProduction ? false : 'eval-cheap-module-source-map',
    resolve: {
      extensions: ['.tsx', '.ts', '.js'],
      alias: { '@': path.resolve(__dirname, 'src') },
    },
    module: {
      rules: [
        {
          test: /\.tsx?$/,
          exclude: /node_modules/,
          use: {
            loader: 'ts-loader',
            // Type errors are reported by `npm run typecheck`; the build only transpiles.
            options: { configFile: path.resolve(__dirname, 'tsconfig.json'), transpileOnly: true },
          },
        },
        { test: /\.css$/, use: ['style-loader', 'css-loader'] },
      ],
    },
    plugins: [
      new HtmlWebpackPlugin({ template: path.resolve(__dirname, 'index.html'), filename: 'index.html' }),
    ],
    performance: { hints: isProduction ? 'warning' : false },
  };
};
