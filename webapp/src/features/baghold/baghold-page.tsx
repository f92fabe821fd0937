import { useCallback } from 'react';

import { CardGrid } from '@/components/tool/card-grid';
import { CardErrors, CardToolWorkspace } from '@/components/tool/card-tool-workspace';
import { ImagePreview } from '@/components/tool/image-url-input';
import { ModelLibraryNotice, RunBlockedReason } from '@/components/tool/model-library-notice';
import { ToolPage } from '@/components/tool/tool-page';
import type { ToastInput } from '@/components/ui/toast';
import { useBatchRun, useGetUrls } from '@/hooks/use-batch-run';
import { useLimitedList } from '@/hooks/use-card-list';
import type { BatchSubmitted } from '@/lib/batches';
import { statusText } from '@/lib/http-status';
import { type LibraryModel, fitOf, useLibraryFit, useLibraryModels } from '@/lib/library-models';

export const INVALID_IMAGE_URL = 'Invalid image URL';
export const GENDERS = ['Male', 'Female'] as const;

type BagCard = { id: string; bagUrl: string; width: string; height: string; depth: string; handle: string; strap: string; gender: string };

const blank = (): Omit<BagCard, 'id'> => ({ bagUrl: '', width: '', height: '', depth: '', handle: '', strap: '', gender: '' });

/** A non-numeric value counts as 0 (spec part 2, §5). */
const num = (text: string) => Number.parseFloat(text) || 0;

export function isBagImageUrl(url: string): boolean {
  const value = url.trim();
  if (!value) return false;
  let path = value;
  try {
    path = new URL(value).pathname;
  } catch {
    path = value.split(/[?#]/)[0];
  }
  return /\.(jpe?g|png|gif|webp)$/i.test(path);
}

/** Ready: an image URL, width, height and depth above 0, and a gender; handle and strap optional. */
export const isReady = (card: BagCard) =>
  isBagImageUrl(card.bagUrl) && num(card.width) > 0 && num(card.height) > 0 && num(card.depth) > 0 && Boolean(card.gender);

const urlsToast = (_created: number, fetched: number): ToastInput => ({
  title: '✅ URLs Retrieved!',
  description: `Found ${fetched} processed bag holder images`,
});
const urlsFailedToast = (error: unknown): ToastInput => ({ title: '❌ Failed to Fetch URLs', description: `Failed to fetch URLs: ${statusText(error)}` });
const processingFailedToast = (error: unknown): ToastInput => ({ title: '❌ Processing Failed', description: `Processing failed: ${statusText(error)}` });
const processingStartedToast = (batch: BatchSubmitted): ToastInput => ({
  title: '✅ Processing Started',
  description: `${batch.count} ${batch.count === 1 ? 'image is' : 'images are'} being processed. Please wait about 90 seconds per bag before fetching results.`,
});

/**
 * The card's bag goes on a model of its gender; when every such model the engine can use
 * shows no hand (a half-length portrait), the bag hangs from a shoulder, which needs the Strap
 * drop: the card says so before the run rather than the job refusing it after.
 */
export function shoulderCarryNote(models: LibraryModel[], card: Pick<BagCard, 'gender' | 'strap'>): string | null {
  if (!card.gender || num(card.strap) > 0) return null;
  const usable = models.filter((model) => model.gender === card.gender.toLowerCase() && fitOf(model, 'baghold').ok);
  const [first] = usable;
  if (!first || !usable.every((model) => fitOf(model, 'baghold').carry === 'shoulder')) return null;
  return `${first.name}: ${fitOf(first, 'baghold').note ?? 'bags are carried on the shoulder, so give the Strap drop.'}`;
}

const DIMENSIONS = [
  ['width', 'Width (cm)'],
  ['height', 'Height (cm)'],
  ['depth', 'Depth (cm)'],
  ['handle', 'Handle drop (cm, optional)'],
  ['strap', 'Strap drop (cm, optional)'],
] as const;

export function BagholdPage() {
  const cards = useLimitedList<BagCard>(blank);
  const batch = useBatchRun({ endpoint: '/api/bag-holder/process', failureToast: processingFailedToast, successToast: processingStartedToast });
  const onUrls = useCallback(
    (urls: string[]) => {
      cards.replaceAll(urls.map((bagUrl) => ({ ...blank(), bagUrl })));
      return Math.min(urls.length, cards.limits.max);
    },
    [cards],
  );
  const urls = useGetUrls({ endpoint: '/api/bag-holder/urls', onUrls, successToast: urlsToast, failureToast: urlsFailedToast });
  const ready = cards.items.filter(isReady);
  const { blocked } = useLibraryFit('baghold');
  const library = useLibraryModels().data ?? [];

  const run = () => {
    if (ready.length === 0) return;
    void batch.run(
      ready.map((card) => card.id),
      ready.map((card) => ({
        Bag_Url: card.bagUrl.trim(),
        Width: num(card.width),
        Height: num(card.height),
        Depth: num(card.depth),
        Handle: card.handle.trim() ? num(card.handle) : null,
        Strap: card.strap.trim() ? num(card.strap) : null,
        Gender: card.gender,
      })),
    );
  };

  return (
    <ToolPage slug="baghold" busy={batch.phase === 'processing'}>
      <ModelLibraryNotice purpose="Baghold places each bag on a library model of the gender you choose." tool="baghold" />
      <CardToolWorkspace
        slug="baghold"
        prep={
          <>
            <p>
              Prep: one bag per image, front view. Give the bag's width, height and depth in centimetres; handle and strap drops are
              optional. Each bag takes about 90 seconds.
            </p>
            <p className="tip">Clean Input: empty the Input Drive after each session, so Get URLs only brings in the new bags.</p>
          </>
        }
        getUrls={{ onClick: () => void urls.fetchUrls(), loading: urls.loading }}
        cards={
          <CardGrid
            cards={cards.items}
            limits={cards.limits}
            onAdd={cards.add}
            onDuplicate={cards.duplicate}
            onRemove={cards.remove}
            addLabel="Add Another Bag"
            cardLabel={(index) => `Bag Holder ${index + 1}`}
            disabled={batch.phase === 'processing'}
            renderCard={(card) => {
              const url = card.bagUrl.trim();
              const invalid = url !== '' && !isBagImageUrl(url);
              const carryNote = shoulderCarryNote(library, card);
              return (
                <>
                  <div className="field">
                    <label htmlFor={`${card.id}-url`}>Bag Image URL</label>
                    <input
                      id={`${card.id}-url`}
                      type="url"
                      value={card.bagUrl}
                      placeholder="https://…"
                      aria-invalid={invalid || undefined}
                      onChange={(event) => cards.update(card.id, { bagUrl: event.target.value })}
                    />
                    {invalid ? <p className="field-hint field-error">{INVALID_IMAGE_URL}</p> : null}
                    {url && !invalid ? <ImagePreview key={url} url={url} alt="Bag preview" /> : null}
                  </div>
                  <div className="dimension-grid">
                    {DIMENSIONS.map(([key, label]) => (
                      <div className="field" key={key}>
                        <label htmlFor={`${card.id}-${key}`}>{label}</label>
                        <input
                          id={`${card.id}-${key}`}
                          type="number"
                          min={0}
                          step={0.1}
                          value={card[key]}
                          onChange={(event) => cards.update(card.id, { [key]: event.target.value })}
                        />
                      </div>
                    ))}
                    <div className="field">
                      <label htmlFor={`${card.id}-gender`}>Gender</label>
                      <select id={`${card.id}-gender`} value={card.gender} onChange={(event) => cards.update(card.id, { gender: event.target.value })}>
                        <option value="">Select gender</option>
                        {GENDERS.map((gender) => (
                          <option key={gender} value={gender}>
                            {gender}
                          </option>
                        ))}
                      </select>
                    </div>
                  </div>
                  {carryNote ? (
                    <p className="field-hint notice-warning" role="note">
                      {carryNote}
                    </p>
                  ) : null}
                  <CardErrors messages={batch.fieldErrors.get(card.id)} />
                </>
              );
            }}
          />
        }
        runArea={
          <section className="ready-panel" aria-labelledby="ready-title">
            <div>
              <h2 id="ready-title">Ready to Process</h2>
              <p className="muted">
                {ready.length} of {cards.count} {cards.count === 1 ? 'bag' : 'bags'} ready
              </p>
            </div>
            <button
              type="button"
              className="primary-button"
              onClick={run}
              disabled={ready.length === 0 || batch.phase === 'processing' || blocked !== null}
              aria-describedby={blocked ? 'baghold-blocked' : undefined}
            >
              Process Bags
            </button>
            <RunBlockedReason id="baghold-blocked" reason={blocked} />
          </section>
        }
        phase={batch.phase}
        batch={batch.batch}
        errorMessage={batch.errorMessage}
        overlay={{ title: 'Processing Your Baghold Requests', message: 'This takes about 90 seconds per bag.' }}
        startNewLabel="Start New Session"
        onStartNew={() => {
          cards.reset();
          batch.startNew();
        }}
      />
    </ToolPage>
  );
}
