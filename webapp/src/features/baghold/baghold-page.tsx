import { type CardSelect, CardToolPage } from '@/components/tool/card-tool-page';
import { ImagePreview } from '@/components/tool/image-url-input';
import type { ToastInput } from '@/components/ui/toast';
import type { BatchSubmitted } from '@/lib/batches';
import { statusText } from '@/lib/http-status';
import { type LibraryModel, fitOf, useLibraryModels } from '@/lib/library-models';

export const INVALID_IMAGE_URL = 'Invalid image URL';

type BagCard = { id: string; imageUrl: string; width: string; height: string; depth: string; handle: string; strap: string; gender: string };

const blank = (): Omit<BagCard, 'id'> => ({ imageUrl: '', width: '', height: '', depth: '', handle: '', strap: '', gender: '' });

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
  isBagImageUrl(card.imageUrl) && num(card.width) > 0 && num(card.height) > 0 && num(card.depth) > 0 && Boolean(card.gender);

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
const TOASTS = { failure: processingFailedToast, success: processingStartedToast, urls: urlsToast, urlsFailed: urlsFailedToast };
const readyCount = (ready: number, total: number) => `${ready} of ${total} ${total === 1 ? 'bag' : 'bags'} ready`;
const SELECTS: CardSelect<BagCard>[] = [{ key: 'gender', choices: 'Gender', id: 'gender', label: 'Gender', placeholder: 'Select gender' }];
const bagLabel = (index: number) => `Bag Holder ${index + 1}`;

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
  const library = useLibraryModels().data ?? [];

  return (
    <CardToolPage<BagCard>
      slug="baghold"
      name="Baghold"
      urlsEndpoint="/api/bag-holder/urls"
      runEndpoint="/api/bag-holder/process"
      library={{ purpose: 'Baghold places each bag on a library model of the gender you choose.' }}
      prep={
        <>
          <p>
            Prep: one bag per image, front view. Give the bag's width, height and depth in centimetres; handle and strap drops are
            optional. Each bag takes about 90 seconds.
          </p>
          <p className="tip">Clean Input: empty the Input Drive after each session, so Get URLs only brings in the new bags.</p>
        </>
      }
      blank={blank}
      imageLabel={null}
      isComplete={isReady}
      toPayload={(card) => ({
        Bag_Url: card.imageUrl.trim(),
        Width: num(card.width),
        Height: num(card.height),
        Depth: num(card.depth),
        Handle: card.handle.trim() ? num(card.handle) : null,
        Strap: card.strap.trim() ? num(card.strap) : null,
        Gender: card.gender,
      })}
      runLabel="Process Bags"
      readyPanel={readyCount}
      addLabel="Add Another Bag"
      cardLabel={bagLabel}
      overlayMessage="This takes about 90 seconds per bag."
      startNewLabel="Start New Session"
      toasts={TOASTS}
      selects={SELECTS}
      fields={(card, update, select) => {
        const url = card.imageUrl.trim();
        const invalid = url !== '' && !isBagImageUrl(url);
        const carryNote = shoulderCarryNote(library, card);
        return (
          <>
            <div className="field">
              <label htmlFor={`${card.id}-url`}>Bag Image URL</label>
              <input
                id={`${card.id}-url`}
                type="url"
                value={card.imageUrl}
                placeholder="https://…"
                aria-invalid={invalid || undefined}
                onChange={(event) => update({ imageUrl: event.target.value })}
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
                    onChange={(event) => update({ [key]: event.target.value })}
                  />
                </div>
              ))}
              {select('gender')}
            </div>
            {carryNote ? (
              <p className="field-hint notice-warning" role="note">
                {carryNote}
              </p>
            ) : null}
          </>
        );
      }}
    />
  );
}
