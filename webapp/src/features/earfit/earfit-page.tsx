import { useCallback } from 'react';

import { CardGrid } from '@/components/tool/card-grid';
import { CardErrors, CardToolWorkspace } from '@/components/tool/card-tool-workspace';
import { ImageUrlInput } from '@/components/tool/image-url-input';
import { ModelLibraryNotice, RunBlockedReason } from '@/components/tool/model-library-notice';
import { ToolPage } from '@/components/tool/tool-page';
import { useToast } from '@/components/ui/toast';
import { useBatchRun, useGetUrls } from '@/hooks/use-batch-run';
import { useLimitedList } from '@/hooks/use-card-list';
import { generationFailedToast, noValidCardsToast, urlsFailedToast, urlsRetrievedToast } from '@/lib/card-tool-messages';
import { useLibraryFit } from '@/lib/library-models';
import { CARD_LIMITS } from '@/lib/limited-list';

export const MIN_HEIGHT_IN = 0.5;
export const MAX_HEIGHT_IN = 10;
export const HEIGHT_RANGE_MESSAGE = 'Must be between 0.5 and 10 inches';
export const EARFIT_INCOMPLETE = 'Please fill in at least one complete card with ring image URL and height between 0.5 and 10 inches';
export const EARFIT_FAILED_FALLBACK = 'An error occurred while generating the earring catalog data';

type EarringCard = { id: string; ringImage: string; ringHeightIn: string };

const blank = (): Omit<EarringCard, 'id'> => ({ ringImage: '', ringHeightIn: '' });
/** A fresh page offers three cards at the spec's default heights (part 2, §9). */
export const EARFIT_DEFAULT_HEIGHTS = ['1.2', '1.5', '2'];
const DEFAULT_CARDS = EARFIT_DEFAULT_HEIGHTS.map((ringHeightIn) => ({ ringImage: '', ringHeightIn }));
const height = (card: EarringCard) => Number.parseFloat(card.ringHeightIn) || 0;
const inRange = (value: number) => value >= MIN_HEIGHT_IN && value <= MAX_HEIGHT_IN;
const isValid = (card: EarringCard) => Boolean(card.ringImage.trim()) && inRange(height(card));

export function EarfitPage() {
  const { toast } = useToast();
  const cards = useLimitedList<EarringCard>(blank, CARD_LIMITS, DEFAULT_CARDS);
  const batch = useBatchRun({ endpoint: '/api/earring-catalog/process', failureToast: generationFailedToast(EARFIT_FAILED_FALLBACK) });
  // Fetched URLs make at most 20 cards, with height 0 (spec part 2, §9).
  const onUrls = useCallback(
    (urls: string[]) => {
      cards.replaceAll(urls.map((ringImage) => ({ ringImage, ringHeightIn: '0' })));
      return Math.min(urls.length, cards.limits.max);
    },
    [cards],
  );
  const { blocked } = useLibraryFit('earfit');
  const urls = useGetUrls({ endpoint: '/api/earring-catalog/urls', onUrls, successToast: urlsRetrievedToast, failureToast: urlsFailedToast });

  const run = () => {
    const valid = cards.items.filter(isValid);
    if (valid.length === 0) {
      toast(noValidCardsToast(EARFIT_INCOMPLETE));
      return;
    }
    void batch.run(
      valid.map((card) => card.id),
      valid.map((card) => ({ ring_image: card.ringImage.trim(), ring_height_in: height(card) })),
    );
  };

  return (
    <ToolPage slug="earfit" busy={batch.phase === 'processing'}>
      <ModelLibraryNotice purpose="Earfit places each earring on your library's models." tool="earfit" />
      <CardToolWorkspace
        slug="earfit"
        prep={
          <p>
            Prep: one earring per image, on a plain background. Give each earring's real height in inches (0.5 to 10) so it is placed at
            scale on every model of your library (about 17 seconds per earring).
          </p>
        }
        getUrls={{ onClick: () => void urls.fetchUrls(), loading: urls.loading }}
        cards={
          <CardGrid
            cards={cards.items}
            limits={cards.limits}
            onAdd={cards.add}
            onDuplicate={cards.duplicate}
            onRemove={cards.remove}
            disabled={batch.phase === 'processing'}
            renderCard={(card) => {
              const value = height(card);
              const outOfRange = value > 0 && !inRange(value);
              const hintId = `${card.id}-height-hint`;
              return (
                <>
                  <ImageUrlInput label="Ring Image URL" mode="card" value={card.ringImage} onChange={(ringImage) => cards.update(card.id, { ringImage })} />
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
                      onChange={(event) => cards.update(card.id, { ringHeightIn: event.target.value })}
                    />
                    {outOfRange ? (
                      <p id={hintId} className="field-hint field-error">
                        {HEIGHT_RANGE_MESSAGE}
                      </p>
                    ) : null}
                  </div>
                  <CardErrors messages={batch.fieldErrors.get(card.id)} />
                </>
              );
            }}
          />
        }
        runArea={
          <>
            <button
              type="button"
              className="primary-button"
              onClick={run}
              disabled={batch.phase === 'processing' || blocked !== null}
              aria-describedby={blocked ? 'earfit-blocked' : undefined}
            >
              Generate Earfit
            </button>
            <RunBlockedReason id="earfit-blocked" reason={blocked} />
          </>
        }
        phase={batch.phase}
        batch={batch.batch}
        errorMessage={batch.errorMessage}
        overlay={{ title: 'Processing Your Earfit Requests', message: 'This takes about 17 seconds per earring.' }}
        startNewLabel="Start New Earfit"
        onStartNew={() => {
          cards.reset();
          batch.startNew();
        }}
      />
    </ToolPage>
  );
}
