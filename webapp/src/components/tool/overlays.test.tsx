import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';

import { BATCH_RUNNING_MESSAGE, batchOutcome, ProcessingOverlay, SUCCESS_MESSAGE, SuccessOverlay } from '@/components/tool/overlays';
import type { Drive } from '@/types/api';
import { renderComponent } from '@/testing/render-app';

const output: Drive = { tool: 'recolor', role: 'output', category: null, label: 'Output Drive', folder: 'f-out', kind: 'local', url: '/drives/f-out' };

test('processing overlay is a labelled busy dialog that shows the job figures', () => {
  renderComponent(
    <ProcessingOverlay title="Processing Your Rebody Request" message="About 15 seconds." progress={40} queuePosition={2} etaSeconds={75} retrying="retrying (attempt 2)" />,
  );

  const dialog = screen.getByRole('dialog', { name: 'Processing Your Rebody Request' });
  expect(dialog).toHaveAttribute('aria-modal', 'true');
  expect(dialog).toHaveAttribute('aria-busy', 'true');
  expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '40');
  expect(dialog).toHaveTextContent('Position in queue: 2');
  expect(dialog).toHaveTextContent('ETA ~1m');
  expect(dialog).toHaveTextContent('Retrying (attempt 2)');
});

function Flow() {
  const [done, setDone] = useState(true);
  const [resets, setResets] = useState(0);
  return (
    <>
      <button type="button" onClick={() => setDone(true)}>
        Run
      </button>
      <p>resets: {resets}</p>
      {done ? (
        <SuccessOverlay
          outputDrive={output}
          startNewLabel="Start New Session"
          onStartNew={() => {
            setDone(false);
            setResets((n) => n + 1);
          }}
        />
      ) : null}
    </>
  );
}

test("success overlay: the spec's text, the Output Drive link, and start-new resets", async () => {
  renderComponent(<Flow />);

  const dialog = screen.getByRole('dialog', { name: 'Success!' });
  expect(dialog).toHaveTextContent('Success! You can now check the drive for your images.');
  expect(screen.getByRole('link', { name: 'Output Drive' })).toHaveAttribute('href', '/drives/f-out');
  // focus moved into the dialog, and Tab stays inside it
  expect(screen.getByRole('link', { name: 'Output Drive' })).toHaveFocus();
  await userEvent.tab();
  expect(screen.getByRole('button', { name: 'Start New Session' })).toHaveFocus();
  await userEvent.tab();
  expect(screen.getByRole('link', { name: 'Output Drive' })).toHaveFocus();

  await userEvent.click(screen.getByRole('button', { name: 'Start New Session' }));

  expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  expect(screen.getByText('resets: 1')).toBeInTheDocument();
});

test('an external output drive opens in a new tab', () => {
  renderComponent(
    <SuccessOverlay
      outputDrive={{ ...output, kind: 'google', url: 'https://drive.google.com/drive/folders/abc' }}
      startNewLabel="Start New Earfit"
      onStartNew={() => undefined}
    />,
  );

  const link = screen.getByRole('link', { name: /Output Drive/ });
  expect(link).toHaveAttribute('href', 'https://drive.google.com/drive/folders/abc');
  expect(link).toHaveAttribute('target', '_blank');
  expect(link).toHaveAttribute('rel', 'noopener noreferrer');
});

test("batch outcome: the spec's texts once every job succeeded, how many are done while they run, else what failed", () => {
  const summary = (done: number, failed: number, active: number) => ({ total: done + failed + active, done, failed, active, progress: 0, etaSeconds: null });
  expect(batchOutcome(summary(3, 0, 0))).toEqual({ title: 'Success!', message: SUCCESS_MESSAGE, tone: 'success' });
  // never Success! over '0 of 3 done'
  expect(batchOutcome(summary(0, 0, 3))).toEqual({ title: '0 of 3 done', message: BATCH_RUNNING_MESSAGE, tone: 'pending' });
  expect(batchOutcome(summary(2, 0, 1)).title).toBe('2 of 3 done');
  expect(batchOutcome(summary(3, 0, 0), { title: 'Done', message: 'Done: check the drive.' })).toEqual({ title: 'Done', message: 'Done: check the drive.', tone: 'success' });
  expect(batchOutcome(summary(0, 1, 0))).toEqual({
    title: 'The image failed',
    message: 'Nothing was written to the drive. The reason is shown under the image below.',
    tone: 'failure',
  });
  expect(batchOutcome(summary(0, 4, 0)).title).toBe('All 4 images failed');
  expect(batchOutcome(summary(2, 1, 0))).toEqual({ title: '2 of 3 done · 1 failed', message: '2 images went to the drive; 1 image failed: the reasons are shown below.', tone: 'failure' });
  expect(batchOutcome(summary(0, 2, 1)).message).toBe('2 images failed: the reasons are shown below. One is still running.');
  expect(batchOutcome(summary(1, 1, 2)).message).toBe('1 image failed: the reasons are shown below. 2 are still running, and 1 image went to the drive.');
});
