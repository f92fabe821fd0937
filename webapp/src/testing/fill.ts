import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

/**
 * Fills a page's fields by their labels, in order: a select gets the option chosen, any other
 * field the text typed. The first is waited for, as a page shows its form once it has loaded.
 */
export async function fill(fields: Record<string, string>): Promise<void> {
  let first = true;
  for (const [label, value] of Object.entries(fields)) {
    const field = first ? await screen.findByLabelText(label) : screen.getByLabelText(label);
    first = false;
    if (field instanceof HTMLSelectElement) await userEvent.selectOptions(field, value);
    else await userEvent.type(field, value);
  }
}
