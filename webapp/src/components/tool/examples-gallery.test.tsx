import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { ExamplesGallery } from '@/components/tool/examples-gallery';
import { renderComponent } from '@/testing/render-app';

const EXAMPLES = [
  { src: '/static/examples/rebody-1.jpg', alt: 'Rebody example 1' },
  { src: '/static/examples/rebody-2.jpg', alt: 'Rebody example 2' },
  { src: '/static/examples/spin-3.mp4', alt: 'Spinview example 3' },
];

async function openFirst() {
  renderComponent(<ExamplesGallery examples={EXAMPLES} />);
  const thumb = screen.getByRole('button', { name: 'Expand Rebody example 1' });
  await userEvent.click(thumb);
  const dialog = screen.getByRole('dialog', { name: 'Rebody example 1' });
  return { thumb, dialog };
}

test('a thumbnail opens the full-size lightbox with focus on its close button', async () => {
  const { dialog } = await openFirst();

  expect(dialog).toHaveAttribute('aria-modal', 'true');
  expect(dialog.querySelector('img')).toHaveAttribute('src', '/static/examples/rebody-1.jpg');
  expect(screen.getByRole('button', { name: 'Close' })).toHaveFocus();
});

test('Escape closes it and focus returns to the thumbnail', async () => {
  const { thumb } = await openFirst();

  await userEvent.keyboard('{Escape}');

  expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  expect(thumb).toHaveFocus();
});

test('the close button closes it', async () => {
  const { thumb } = await openFirst();

  await userEvent.click(screen.getByRole('button', { name: 'Close' }));

  expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  expect(thumb).toHaveFocus();
});

test('a click on the backdrop closes it; a click on the image does not', async () => {
  const { dialog } = await openFirst();

  fireEvent.click(dialog.querySelector('img') as HTMLImageElement);
  expect(screen.getByRole('dialog')).toBeInTheDocument();

  fireEvent.click(screen.getByTestId('overlay-backdrop'));
  expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
});

test('video examples play in the lightbox', async () => {
  renderComponent(<ExamplesGallery examples={EXAMPLES} />);

  await userEvent.click(screen.getByRole('button', { name: 'Expand Spinview example 3' }));

  const video = screen.getByRole('dialog', { name: 'Spinview example 3' }).querySelector('video');
  expect(video).toHaveAttribute('src', '/static/examples/spin-3.mp4');
  expect(video).toHaveAttribute('controls');
});
