import { CardToolPage } from '@/components/tool/card-tool-page';
import { generationFailedToast } from '@/lib/card-tool-messages';

export const MIN_HEIGHT_IN = 0.5;
export const MAX_HEIGHT_IN = 10;
export const HEIGHT_RANGE_MESSAGE = 'Must be between 0.5 and 10 inches';
export const EARFIT_INCOMPLETE = 'Please fill in at least one complete card with ring image URL and height between 0.5 and 10 inches';
export const EARFIT_FAILED_FALLBACK = 'An error occurred while generating the earring catalog data';

type EarringCard = { id: string; imageUrl: string; ringHeightIn: string };

const blank = (): Omit<EarringCard, 'id'> => ({ imageUrl: '', ringHeightIn: '' });
/** A fresh page offers three cards at the spec's default heights (part 2, §9). */
export const EARFIT_DEFAULT_HEIGHTS = ['1.2', '1.5', '2'];
const DEFAULT_CARDS = EARFIT_DEFAULT_HEIGHTS.map((ringHeightIn) => ({ imageUrl: '', ringHeightIn }));
// Fetched URLs make at most 20 cards, with height 0 (spec part 2, §9).
const fromUrl = (imageUrl: string) => ({ imageUrl, ringHeightIn: '0' });
const height = (card: EarringCard) => Number.parseFloat(card.ringHeightIn) || 0;
const inRange = (value: number) => value >= MIN_HEIGHT_IN && value <= MAX_HEIGHT_IN;
const isValid = (card: EarringCard) => Boolean(card.imageUrl.trim()) && inRange(height(card));
const TOASTS = { failure: generationFailedToast(EARFIT_FAILED_FALLBACK) };

export function EarfitPage() {
  return (
    <CardToolPage<EarringCard>
      slug="earfit"
      name="Earfit"
      urlsEndpoint="/api/earring-catalog/urls"
      runEndpoint="/api/earring-catalog/process"
      library={{ purpose: 'Earfit places each earring on your library\'s models.' }}
      prep={
        <p>
          Prep: one earring per image, on a plain background. Give each earring's real height in inches (0.5 to 10) so it is placed at
          scale on every model of your library (about 17 seconds per earring).
        </p>
      }
      blank={blank}
      initial={DEFAULT_CARDS}
      fromUrl={fromUrl}
      imageLabel="Ring Image URL"
      isComplete={isValid}
      incomplete={EARFIT_INCOMPLETE}
      toPayload={(card) => ({ ring_image: card.imageUrl.trim(), ring_height_in: height(card) })}
      runLabel="Generate Earfit"
      overlayMessage="This takes about 17 seconds per earring."
      toasts={TOASTS}
      fields={(card, update) => {
        const value = height(card);
        const outOfRange = value > 0 && !inRange(value);
        const hintId = `${card.id}-height-hint`;
        return (
          <div className="field">
            <label htmlFor={`${card.id}-height`}>Ring Height (inches)</label>
            <input
              id={`${card.id}-height`}
              type="number"
              min={MIN_HEIGHT_IN}
              max={MAX_HEIGHT_IN}
              step={0.01}
              value={card.ringHeightIn}
              aria-invalid={outOfRange || undefined}
              aria-describedby={outOfRange ? hintId : undefined}
              onChange={(event) => update({ ringHeightIn: event.target.value })}
            />
            {outOfRange ? (
              <p id={hintId} className="field-hint field-error">
                {HEIGHT_RANGE_MESSAGE}
              </p>
            ) : null}
          </div>
        );
      }}
    />
  );
}
