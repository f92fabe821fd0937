import type { ReactNode } from 'react';

import { Options } from '@/components/ui/options';
import { useApplyLimited } from '@/hooks/use-card-list';
import { CHANGE_LIMITS, type ListLimits, addItem, newItemId, removeItem } from '@/lib/limited-list';

type WithId = { id: string };

type CardActions = { duplicate: () => void; remove: () => void };

/** The bounded list the grid shows and edits (what useLimitedList gives). */
type CardList<T extends WithId> = {
  items: T[];
  limits: ListLimits;
  add: () => void;
  duplicate: (id: string) => void;
  remove: (id: string) => void;
};

type CardGridProps<T extends WithId> = {
  list: CardList<T>;
  renderCard: (card: T, index: number) => ReactNode;
  /** Label of the add tile, e.g. 'Add Card' or 'Add Another Bag'. */
  addLabel?: string;
  /** Names a card for screen readers, e.g. "Card 3". */
  cardLabel?: (index: number) => string;
  disabled?: boolean;
};

/** Grid of cards with duplicate and remove per card and an add tile showing count/max. */
export function CardGrid<T extends WithId>({
  list: { items: cards, limits, add: onAdd, duplicate: onDuplicate, remove: onRemove },
  renderCard,
  addLabel = 'Add Card',
  cardLabel = (index) => `Card ${index + 1}`,
  disabled = false,
}: CardGridProps<T>) {
  return (
    <ul className="card-grid" aria-label="Cards">
      {cards.map((card, index) => {
        const actions: CardActions = { duplicate: () => onDuplicate(card.id), remove: () => onRemove(card.id) };
        const label = cardLabel(index);
        return (
          <li key={card.id} className="tool-card" aria-label={label}>
            <div className="tool-card-header">
              <span className="tool-card-title">{label}</span>
              <div className="tool-card-actions">
                <button type="button" className="icon-button" disabled={disabled} onClick={actions.duplicate} aria-label={`Duplicate ${label}`}>
                  Duplicate
                </button>
                <button type="button" className="icon-button" disabled={disabled} onClick={actions.remove} aria-label={`Remove ${label}`}>
                  Remove
                </button>
              </div>
            </div>
            {renderCard(card, index)}
          </li>
        );
      })}
      <li className="tool-card add-card-tile">
        <button type="button" className="add-card-button" disabled={disabled} onClick={onAdd}>
          <span aria-hidden="true" className="add-card-plus">
            +
          </span>
          <span>{addLabel}</span>
          <span className="muted small">
            {cards.length}/{limits.max}
          </span>
        </button>
      </li>
    </ul>
  );
}

export type Change = { id: string; place: string; instruction: string };

export const blankChange = (): Change => ({ id: newItemId(), place: '', instruction: '' });

type ChangeListProps = {
  changes: Change[];
  onChange: (changes: Change[]) => void;
  places: readonly string[];
  disabled?: boolean;
};

/** A card's changes (Reshape): area plus instruction, 1 to 10 per card. */
export function ChangeList({ changes, onChange, places, disabled = false }: ChangeListProps) {
  const apply = useApplyLimited();
  const limits: ListLimits = CHANGE_LIMITS;
  const update = (id: string, patch: Partial<Change>) =>
    onChange(changes.map((change) => (change.id === id ? { ...change, ...patch } : change)));

  return (
    <fieldset className="change-list" disabled={disabled}>
      <legend>Changes</legend>
      {changes.map((change, index) => (
        <div key={change.id} className="change-row">
          <label>
            <span className="visually-hidden">Area of change {index + 1}</span>
            <select value={change.place} onChange={(event) => update(change.id, { place: event.target.value })}>
              <Options items={places} value={(place) => place} blank="Area" />
            </select>
          </label>
          <label>
            <span className="visually-hidden">Instruction {index + 1}</span>
            <input
              type="text"
              value={change.instruction}
              placeholder="Instruction"
              onChange={(event) => update(change.id, { instruction: event.target.value })}
            />
          </label>
          <button
            type="button"
            className="icon-button"
            aria-label={`Remove change ${index + 1}`}
            onClick={() => apply(removeItem(changes, change.id, limits), onChange)}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="secondary-button" onClick={() => apply(addItem(changes, blankChange(), limits), onChange)}>
        Add Change ({changes.length}/{limits.max})
      </button>
    </fieldset>
  );
}
