import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// A page's first render loads its lazy route, which ts-jest compiles on first use: on a fresh
// clone of a loaded 2-core machine that alone can pass the 1 s default of findBy* queries.
configure({ asyncUtilTimeout: 5000 });
