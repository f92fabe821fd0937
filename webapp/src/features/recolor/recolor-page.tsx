import { useCallback } from 'react';

import { CardGrid } from '@/components/tool/card-grid';
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

export const RECOLOR_GARMENTS = [
  'blazer', 'blouse', 'cardigan', 'coat', 'dress', 'full-garment', 'hoodie', 'jacket', 'jeans', 'jumpsuit', 'polo',
  'pullover', 'romper', 'shirt', 'shorts', 'skirt', 'sweater', 'sweatshirt', 'top', 'trousers', 'tshirt',
] as const;
export const DEFAULT_COLOR = '#dac9b9';
export const RECOLOR_INCOMPLETE = 'Please fill in at least one complete card (URL, color, and garment type)';

type RecolorCard = { id: string; imageUrl: string; targetColor: string; garmentType: string };

const blank = (): Omit<RecolorCard, 'id'> => ({ imageUrl: '', targetColor: DEFAULT_COLOR, garmentType: '' });

/** The picker shows the text when it is a 3 or 6 digit hex, else the default colour. */
export function pickerColor(text: string): string {
  const value = text.trim();
  if (/^#[0-9a-f]{6}$/i.test(value)) return value.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(value)) return `#${[...value.slice(1)].map((c) => c + c).join('')}`.toLowerCase();
  return DEFAULT_COLOR;
}

const isComplete = (card: RecolorCard) => Boolean(card.imageUrl.trim() && card.targetColor.trim() && card.garmentType);

export function RecolorPage() {
  const { toast } = useToast();
  const cards = useLimitedList<RecolorCard>(blank);
  const batch = useBatchRun({ endpoint: '/api/recoloring/recolor', failureToast: generationFailedToast() });
  const onUrls = useCallback(
    (urls: string[]) => {
      cards.replaceAll(urls.map((imageUrl) => ({ ...blank(), imageUrl })));
      return Math.min(urls.length, cards.limits.max);
    },
    [cards],
  );
  const urls = useGetUrls({ endpoint: '/api/recoloring/urls', onUrls, successToast: urlsRetrievedToast, failureToast: urlsFailedToast });

  const run = () => {
    const complete = cards.items.filter(isComplete);
    if (complete.length === 0) {
      toast(noValidCardsToast(RECOLOR_INCOMPLETE));
      return;
    }
    void batch.run(
      complete.map((card) => card.id),
      complete.map((card) => ({ image_url: card.imageUrl.trim(), target_color: card.targetColor.trim(), garment_type: card.garmentType })),
    );
  };

  const startNew = () => {
    cards.reset();
    batch.startNew();
  };

  return (
    <ToolPage slug="recolor" busy={batch.phase === 'processing'}>
      <CardToolWorkspace
        slug="recolor"
        prep={
          <p>
            Prep: one garment per image. Paste image links into the cards or press Get URLs to load the images of the Input Drive, then
            choose the target colour and garment type. Results go to the Output Drive (about 90 seconds per image).
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
                  <label htmlFor={`${card.id}-color`}>Target Color</label>
                  <div className="color-field">
                    <input
                      type="color"
                      aria-label="Target Color picker"
                      value={pickerColor(card.targetColor)}
                      onChange={(event) => cards.update(card.id, { targetColor: event.target.value })}
                    />
                    <input
                      id={`${card.id}-color`}
                      type="text"
                      value={card.targetColor}
                      placeholder={DEFAULT_COLOR}
                      onChange={(event) => cards.update(card.id, { targetColor: event.target.value })}
                    />
                  </div>
                </div>
                <div className="field">
                  <label htmlFor={`${card.id}-garment`}>Garment Type</label>
                  <select id={`${card.id}-garment`} value={card.garmentType} onChange={(event) => cards.update(card.id, { garmentType: event.target.value })}>
                    <option value="">Select garment type</option>
                    {RECOLOR_GARMENTS.map((garment) => (
                      <option key={garment} value={garment}>
                        {garment}
                      </option>
                    ))}
                  </select>
                </div>
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
        overlay={{ title: 'Processing Your Recolor Requests', message: CARD_TOOL_OVERLAY_MESSAGE }}
        startNewLabel="Start New Recolor"
        onStartNew={startNew}
      />
    </ToolPage>
  );
}
