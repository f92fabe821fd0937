import { fireEvent, screen } from '@testing-library/react';

import { renderTool } from '@/testing/tool-mocks';

beforeEach(() => {
  // jsdom has no 2D context; the page draws only when it gets one.
  jest.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});

test('counters, ratio options, presets filling the description, the upload limit and Generate gating', async () => {
  renderTool('/editorial-product', { 'GET /api/photo-presets/': { body: [{ title: 'Minimalist White', sentence: 'Clean white seamless studio.' }] } });
  expect(await screen.findByText('Images 0/10')).toBeInTheDocument();
  expect(screen.getByText('Ratio 1:1')).toBeInTheDocument();
  expect(screen.getByText('Estimated time: ~30 seconds')).toBeInTheDocument();
  const ratio = screen.getByLabelText('Aspect Ratio');
  expect(ratio).toHaveValue('1:1');
  expect(Array.from((ratio as HTMLSelectElement).options).map((option) => option.text)).toEqual([
    '16:9 (1920x1080)',
    '4:3 (1600x1200)',
    '1:1 (1200x1200)',
    '9:16 (1080x1920)',
    '3:4 (1200x1600)',
  ]);
  fireEvent.change(ratio, { target: { value: '9:16' } });
  const canvas = screen.getByLabelText(/Layout canvas 9:16/) as HTMLCanvasElement;
  expect([canvas.width, canvas.height]).toEqual([1080, 1920]);

  fireEvent.change(await screen.findByLabelText('Photography Preset'), { target: { value: 'Minimalist White' } });
  expect(screen.getByLabelText('Description')).toHaveValue('Clean white seamless studio.');
  expect(screen.getByRole('button', { name: 'Generate Product' })).toBeDisabled();

  const files = Array.from({ length: 11 }, (_, index) => new File(['x'], `p${index}.png`, { type: 'image/png' }));
  fireEvent.change(screen.getByTestId('canvas-files'), { target: { files } });
  expect(await screen.findByText('You can only upload 10 more image(s). Maximum is 10 images.')).toBeInTheDocument();
  expect(screen.getByText('Images 0/10')).toBeInTheDocument();
});
