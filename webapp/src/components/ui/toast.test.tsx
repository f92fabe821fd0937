import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { TOAST_DURATION_MS, useToast } from '@/components/ui/toast';
import { renderComponent } from '@/testing/render-app';

function Buttons() {
  const { toast } = useToast();
  return (
    <>
      <button type="button" onClick={() => toast({ title: '✅ URLs Retrieved', description: 'Fetched 3 URLs and created 3 cards' })}>
        ok
      </button>
      <button type="button" onClick={() => toast({ title: '❌ Generation Failed', description: 'HTTP error! status: 500', variant: 'destructive' })}>
        fail
      </button>
    </>
  );
}

test('a toast has a title and description; destructive ones are alerts, others polite status', async () => {
  renderComponent(<Buttons />);

  await userEvent.click(screen.getByRole('button', { name: 'ok' }));
  await userEvent.click(screen.getByRole('button', { name: 'fail' }));

  const region = screen.getByRole('region', { name: 'Notifications' });
  const status = screen.getByRole('status');
  expect(region).toContainElement(status);
  expect(status).toHaveTextContent('✅ URLs RetrievedFetched 3 URLs and created 3 cards');
  const alert = screen.getByRole('alert');
  expect(alert).toHaveTextContent('❌ Generation FailedHTTP error! status: 500');
  expect(alert).toHaveClass('toast-destructive');

  await userEvent.click(screen.getAllByRole('button', { name: 'Dismiss notification' })[1]);
  expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  expect(screen.getByRole('status')).toBeInTheDocument();
});

test('toasts leave by themselves after a few seconds', async () => {
  jest.useFakeTimers();
  try {
    renderComponent(<Buttons />);
    act(() => screen.getByRole('button', { name: 'ok' }).click());
    expect(screen.getByRole('status')).toBeInTheDocument();

    act(() => jest.advanceTimersByTime(TOAST_DURATION_MS + 10));

    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  } finally {
    jest.useRealTimers();
  }
});
