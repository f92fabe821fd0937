import { type ReactNode, useCallback } from 'react';

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

export type ImageCard = { id: string; imageUrl: string };

type ImageCardToolPageProps<C extends ImageCard> = {
  slug: string;
  /** As the overlay and Start New say it: 'Recolor', 'Refabric', 'Reshape'. */
  name: string;
  urlsEndpoint: string;
  runEndpoint: string;
  prep: ReactNode;
  blank: () => Omit<C, 'id'>;
  isComplete: (card: C) => boolean;
  /** The toast when no card is complete. */
  incomplete: string;
  /** What the API gets for a complete card. */
  toPayload: (card: C) => Record<string, unknown>;
  /** The card's fields after its Image URL. */
  fields: (card: C, update: (patch: Partial<Omit<C, 'id'>>) => void) => ReactNode;
  /** Run stays off until this holds (Refabric: a card with a URL and a fabric). */
  ready?: (cards: C[]) => boolean;
};

/**
 * Recolor, Refabric and Reshape: a grid of image cards filled from the Input Drive or by hand,
 * only complete cards sent, then the batch's progress and the Output Drive.
 */
export function ImageCardToolPage<C extends ImageCard>({
  slug,
  name,
  urlsEndpoint,
  runEndpoint,
  prep,
  blank,
  isComplete,
  incomplete,
  toPayload,
  fields,
  ready = () => true,
}: ImageCardToolPageProps<C>) {
  const { toast } = useToast();
  const cards = useLimitedList<C>(blank);
  const batch = useBatchRun({ endpoint: runEndpoint, failureToast: generationFailedToast() });
  const processing = batch.phase === 'processing';
  const onUrls = useCallback(
    (urls: string[]) => {
      cards.replaceAll(urls.map((imageUrl) => ({ ...blank(), imageUrl })));
      return Math.min(urls.length, cards.limits.max);
    },
    [cards, blank],
  );
  const urls = useGetUrls({ endpoint: urlsEndpoint, onUrls, successToast: urlsRetrievedToast, failureToast: urlsFailedToast });

  const run = () => {
    const complete = cards.items.filter(isComplete);
    if (complete.length === 0) {
      toast(noValidCardsToast(incomplete));
      return;
    }
    void batch.run(
      complete.map((card) => card.id),
      complete.map(toPayload),
    );
  };

  return (
    <ToolPage slug={slug} busy={processing}>
      <CardToolWorkspace
        slug={slug}
        prep={prep}
        getUrls={{ onClick: () => void urls.fetchUrls(), loading: urls.loading }}
        cards={
          <CardGrid
            cards={cards.items}
            limits={cards.limits}
            onAdd={cards.add}
            onDuplicate={cards.duplicate}
            onRemove={cards.remove}
            disabled={processing}
            renderCard={(card) => (
              <>
                <ImageUrlInput label="Image URL" mode="card" value={card.imageUrl} onChange={(imageUrl) => cards.update(card.id, { imageUrl } as Partial<Omit<C, 'id'>>)} />
                {fields(card, (patch) => cards.update(card.id, patch))}
                <CardErrors messages={batch.fieldErrors.get(card.id)} />
              </>
            )}
          />
        }
        runArea={
          <button type="button" className="primary-button" onClick={run} disabled={processing || !ready(cards.items)}>
            Run
          </button>
        }
        phase={batch.phase}
        batch={batch.batch}
        errorMessage={batch.errorMessage}
        overlay={{ title: `Processing Your ${name} Requests`, message: CARD_TOOL_OVERLAY_MESSAGE }}
        startNewLabel={`Start New ${name}`}
        onStartNew={() => {
          cards.reset();
          batch.startNew();
        }}
      />
    </ToolPage>
  );
}

/** A labelled select with a placeholder option (the card tools' dropdowns). */
export function SelectField({
  id,
  label,
  value,
  options,
  placeholder,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  options: readonly string[];
  placeholder: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">{placeholder}</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </div>
  );
}
