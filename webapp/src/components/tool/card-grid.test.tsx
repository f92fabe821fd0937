import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';

import { CardGrid, type Change, ChangeList, blankChange } from '@/components/tool/card-grid';
import { useLimitedList } from '@/hooks/use-card-list';
import { CARD_LIMITS } from '@/lib/limited-list';
import { renderComponent } from '@/testing/render-app';

type RecolorCard = { id: string; imageUrl: string; targetColor: string };
const blank = () => ({ imageUrl: '', targetColor: '#dac9b9' });

function Grid() {
  const cards = useLimitedList<RecolorCard>(blank, CARD_LIMITS);
  return (
    <CardGrid
      list={cards}
      renderCard={(card) => (
        <label>
          Image URL
          <input value={card.imageUrl} onChange={(event) => cards.update(card.id, { imageUrl: event.target.value })} />
        </label>
      )}
    />
  );
}

const cardCount = () => screen.getAllByRole('listitem', { name: /^Card \d+$/ }).length;

test('starts with one card; Add Card shows count/20 and stops at 20 with the spec toast', async () => {
  renderComponent(<Grid />);
  expect(cardCount()).toBe(1);
  const add = screen.getByRole('button', { name: /Add Card/ });
  expect(add).toHaveTextContent('1/20');

  for (let i = 0; i < 19; i += 1) await userEvent.click(add);
  expect(cardCount()).toBe(20);
  expect(add).toHaveTextContent('20/20');
  expect(screen.queryByRole('alert')).not.toBeInTheDocument();

  await userEvent.click(add);

  expect(cardCount()).toBe(20);
  const toast = screen.getByRole('alert');
  expect(toast).toHaveTextContent('Maximum Reached');
  expect(toast).toHaveTextContent('You can only have up to 20 cards');
});

test.each([
  { what: 'duplicate also respects the maximum', cards: 20, button: 'Duplicate Card 3', title: 'Maximum Reached', message: 'You can only have up to 20 cards' },
  { what: 'the last card cannot be removed', cards: 1, button: 'Remove Card 1', title: 'Cannot Remove', message: 'You must have at least 1 card' },
])('$what: $title / $message', async ({ cards, button, title, message }) => {
  renderComponent(<Grid />);
  for (let i = 1; i < cards; i += 1) await userEvent.click(screen.getByRole('button', { name: /Add Card/ }));

  await userEvent.click(screen.getByRole('button', { name: button }));

  expect(cardCount()).toBe(cards);
  const toast = screen.getByRole('alert');
  expect(toast).toHaveTextContent(title);
  expect(toast).toHaveTextContent(message);
});

test('duplicate copies the card right after it; remove drops exactly that card', async () => {
  renderComponent(<Grid />);
  await userEvent.type(screen.getByLabelText('Image URL'), 'https://cdn.example/a.jpg');
  await userEvent.click(screen.getByRole('button', { name: /Add Card/ }));
  await userEvent.type(within(screen.getByRole('listitem', { name: 'Card 2' })).getByLabelText('Image URL'), 'https://cdn.example/b.jpg');

  await userEvent.click(screen.getByRole('button', { name: 'Duplicate Card 1' }));

  const values = () => screen.getAllByLabelText('Image URL').map((input) => (input as HTMLInputElement).value);
  expect(values()).toEqual(['https://cdn.example/a.jpg', 'https://cdn.example/a.jpg', 'https://cdn.example/b.jpg']);

  await userEvent.click(screen.getByRole('button', { name: 'Remove Card 2' }));
  expect(values()).toEqual(['https://cdn.example/a.jpg', 'https://cdn.example/b.jpg']);
});

function Changes() {
  const [changes, setChanges] = useState<Change[]>([blankChange()]);
  return <ChangeList changes={changes} onChange={setChanges} places={['hem', 'sleeves']} />;
}

test('changes per card: 1 to 10, with their own messages', async () => {
  renderComponent(<Changes />);
  const add = screen.getByRole('button', { name: /Add Change/ });

  await userEvent.click(screen.getByRole('button', { name: 'Remove change 1' }));
  expect(screen.getByRole('alert')).toHaveTextContent('Cannot RemoveYou must have at least 1 change per card');
  expect(screen.getAllByRole('combobox')).toHaveLength(1);

  for (let i = 0; i < 9; i += 1) await userEvent.click(add);
  expect(screen.getAllByRole('combobox')).toHaveLength(10);
  expect(add).toHaveTextContent('10/10');

  await userEvent.click(add);

  expect(screen.getAllByRole('combobox')).toHaveLength(10);
  expect(screen.getAllByRole('alert').at(-1)).toHaveTextContent('Maximum ReachedYou can only have up to 10 changes per card');
});
