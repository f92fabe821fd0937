import { useCallback } from 'react';

import { type Change, CardGrid, ChangeList, blankChange } from '@/components/tool/card-grid';
import { CardErrors, CardToolWorkspace } from '@/components/tool/card-tool-workspace';
import { ImageUrlInput } from '@/components/tool/image-url-input';
import { ToolPage } from '@/components/tool/tool-page';
import { useToast } from '@/components/ui/toast';
import { useBatchRun, useGetUrls } from '@/hooks/use-batch-run';
import { useLimitedList } from '@/hooks/use-card-list';
import {
  CARD_TOOL_OVERLAY_MESSAGE,
  generationFailedToast,
  noValidCardsToast,
  urlsFailedToast,
  urlsRetrievedToast,
} from '@/lib/card-tool-messages';

export const RESHAPE_AREAS = ['back', 'collar', 'fit', 'hem', 'length', 'neckline', 'shoulders', 'silhouette', 'sleeves', 'waist'] as const;
/** Display names; sent lower-cased. */
export const RESHAPE_GARMENTS = [
  'Blazer', 'Blouse', 'Cardigan', 'Coat', 'Dress', 'Full Garment', 'Hoodie', 'Jacket', 'Jeans', 'Jumpsuit', 'Outerwear', 'Polo',
  'Pullover', 'Romper', 'Shirt', 'Shorts', 'Skirt', 'Sweater', 'Sweatshirt', 'T-Shirt', 'Top', 'Trousers / Pants',
] as const;
export const RESHAPE_INCOMPLETE = 'Please fill in at least one complete card (URL, garment type, and at least one change)';

type ReshapeCard = { id: string; imageUrl: string; targetGarment: string; changes: Change[] };

const blank = (): Omit<ReshapeCard, 'id'> => ({ imageUrl: '', targetGarment: '', changes: [blankChange()] });
const completeChanges = (card: ReshapeCard) => card.changes.filter((change) => change.place && change.instruction.trim());
const isComplete = (card: ReshapeCard) => Boolean(card.imageUrl.trim() && card.targetGarment && completeChanges(card).length > 0);

export function ReshapePage() {
  const { toast } = useToast();
  const cards = useLimitedList<ReshapeCard>(blank);
  const batch = useBatchRun({ endpoint: '/api/reshaping/reshape', failureToast: generationFailedToast() });
  const onUrls = useCallback(
    (urls: string[]) => {
      cards.replaceAll(urls.map((imageUrl) => ({ ...blank(), imageUrl })));
      return Math.min(urls.length, cards.limits.max);
    },
    [cards],
  );
  const urls = useGetUrls({ endpoint: '/api/reshaping/urls', onUrls, successToast: urlsRetrievedToast, failureToast: urlsFailedToast });

  const run = () => {
    const complete = cards.items.filter(isComplete);
    if (complete.length === 0) {
      toast(noValidCardsToast(RESHAPE_INCOMPLETE));
      return;
    }
    void batch.run(
      complete.map((card) => card.id),
      complete.map((card) => ({
        image_url: card.imageUrl.trim(),
        target_garment: card.targetGarment.toLowerCase(),
        // only complete changes are sent
        changes: completeChanges(card).map((change) => ({ place: change.place, instruction: change.instruction.trim() })),
      })),
    );
  };

  return (
    <ToolPage slug="reshape" busy={batch.phase === 'processing'}>
      <CardToolWorkspace
        slug="reshape"
        prep={
          <p>
            Prep: one garment per image. For each card choose the garment and list up to 10 changes, each an area and an instruction
            (e.g. sleeves: make them three-quarter length). Results go to the Output Drive (about 90 seconds per image).
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
            renderCard={(card) => (
              <>
                <ImageUrlInput label="Image URL" mode="card" value={card.imageUrl} onChange={(imageUrl) => cards.update(card.id, { imageUrl })} />
                <div className="field">
                  <label htmlFor={`${card.id}-garment`}>Target Garment</label>
                  <select id={`${card.id}-garment`} value={card.targetGarment} onChange={(event) => cards.update(card.id, { targetGarment: event.target.value })}>
                    <option value="">Select garment</option>
                    {RESHAPE_GARMENTS.map((garment) => (
                      <option key={garment} value={garment}>
                        {garment}
                      </option>
                    ))}
                  </select>
                </div>
                <ChangeList changes={card.changes} places={RESHAPE_AREAS} onChange={(changes) => cards.update(card.id, { changes })} />
                <CardErrors messages={batch.fieldErrors.get(card.id)} />
              </>
            )}
          />
        }
        runArea={
          <button type="button" className="primary-button" onClick={run} disabled={batch.phase === 'processing'}>
            Run
          </button>
        }
        phase={batch.phase}
        batch={batch.batch}
        errorMessage={batch.errorMessage}
        overlay={{ title: 'Processing Your Reshape Requests', message: CARD_TOOL_OVERLAY_MESSAGE }}
        startNewLabel="Start New Reshape"
        onStartNew={() => {
          cards.reset();
          batch.startNew();
        }}
      />
    </ToolPage>
  );
}
