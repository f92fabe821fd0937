import { type ReactNode, useCallback } from 'react';

import { BatchProgress } from '@/components/tool/batch-progress';
import { CardGrid } from '@/components/tool/card-grid';
import { DriveLinks } from '@/components/tool/drive-links';
import { ImageUrlInput } from '@/components/tool/image-url-input';
import { JobLog } from '@/components/tool/job-log';
import { ModelLibraryNotice, RunBlockedReason } from '@/components/tool/model-library-notice';
import { batchOutcome, ProcessingOverlay, SUCCESS_MESSAGE, SuccessOverlay } from '@/components/tool/overlays';
import { ToolPage } from '@/components/tool/tool-page';
import { Options } from '@/components/ui/options';
import { type ToastInput, useToast } from '@/components/ui/toast';
import { useBatchRun, useGetUrls } from '@/hooks/use-batch-run';
import { useLimitedList } from '@/hooks/use-card-list';
import { type BatchSubmitted, summarizeBatch, useBatchJobs } from '@/lib/batches';
import {
  CARD_TOOL_OVERLAY_MESSAGE,
  generationFailedToast,
  noValidCardsToast,
  urlsFailedToast,
  urlsRetrievedToast,
} from '@/lib/card-tool-messages';
import { useToolDrives } from '@/lib/drives';
import { useLibraryFit } from '@/lib/library-models';
import { CARD_LIMITS } from '@/lib/limited-list';
import { useToolsBySlug } from '@/lib/tools';
import type { Drive } from '@/types/api';

/** Every card has an image (Recolor's garment, Earfit's ring, Baghold's bag) and its fields. */
export type ImageCard = { id: string; imageUrl: string };

/** A dropdown of the card whose options are the catalogue's choices for one API field. */
export type CardSelect<C extends ImageCard> = {
  key: Exclude<keyof C, 'id' | 'imageUrl'> & string;
  /** The API field whose catalogue choices are the options. */
  choices: string;
  /** The select's id after the card's. */
  id: string;
  label: string;
  placeholder: string;
  optionLabel?: (value: string) => string;
};

type Fields<C extends ImageCard> = (card: C, update: (patch: Partial<Omit<C, 'id'>>) => void, select: (key: CardSelect<C>['key']) => ReactNode) => ReactNode;

type CardToolPageProps<C extends ImageCard> = {
  slug: string;
  /** As the overlay and Start New say it: 'Recolor', 'Earfit', 'Baghold'. */
  name: string;
  urlsEndpoint: string;
  runEndpoint: string;
  prep: ReactNode;
  /** Tools that dress the library's models: the library notice (with this purpose), and Run
   * disabled with the reason while no model can be used. */
  library?: { purpose: string };
  blank: () => Omit<C, 'id'>;
  /** The cards a fresh page starts with (the spec's defaults); one blank card when absent. */
  initial?: Omit<C, 'id'>[];
  /** The card a URL of the Input Drive makes; the blank card with that image when absent. */
  fromUrl?: (imageUrl: string) => Omit<C, 'id'>;
  /** The image field's label; null when `fields` draws the image field itself. */
  imageLabel?: string | null;
  /** The card's dropdowns; after the image URL unless `fields` places them. */
  selects?: CardSelect<C>[];
  /** The card's fields after its image URL; `select(key)` draws one of `selects`. */
  fields?: Fields<C>;
  isComplete: (card: C) => boolean;
  /** What the API gets for a complete card. */
  toPayload: (card: C) => Record<string, unknown>;
  /** The toast when Run finds no complete card. */
  incomplete?: string;
  /** Run stays off until this holds (Refabric: a card with a URL and a fabric). */
  ready?: (cards: C[]) => boolean;
  runLabel?: string;
  /** Baghold: a Ready to Process panel around Run counting the complete cards, e.g. '1 of 2 bags ready'. */
  readyPanel?: (complete: number, total: number) => string;
  addLabel?: string;
  cardLabel?: (index: number) => string;
  overlayMessage?: string;
  startNewLabel?: string;
  toasts?: {
    failure?: (error: unknown) => ToastInput;
    success?: (batch: BatchSubmitted) => ToastInput;
    urls?: (created: number, fetched: number) => ToastInput;
    urlsFailed?: (error: unknown) => ToastInput;
  };
};

const always = () => true;
const defaultFailure = generationFailedToast();

/**
 * The card tools (Recolor, Refabric, Reshape, Earfit, Baghold): a grid of cards filled from the
 * Input Drive or by hand, only complete cards sent, then the batch's progress and the Output Drive.
 */
export function CardToolPage<C extends ImageCard>({
  slug,
  name,
  urlsEndpoint,
  runEndpoint,
  prep,
  library,
  blank,
  initial,
  fromUrl,
  imageLabel = 'Image URL',
  selects = [],
  fields,
  isComplete,
  toPayload,
  incomplete,
  ready = always,
  runLabel = 'Run',
  readyPanel,
  addLabel,
  cardLabel,
  overlayMessage = CARD_TOOL_OVERLAY_MESSAGE,
  startNewLabel = `Start New ${name}`,
  toasts = {},
}: CardToolPageProps<C>) {
  const { toast } = useToast();
  const cards = useLimitedList<C>(blank, CARD_LIMITS, initial);
  const batch = useBatchRun({ endpoint: runEndpoint, failureToast: toasts.failure ?? defaultFailure, successToast: toasts.success });
  const processing = batch.phase === 'processing';
  const onUrls = useCallback(
    (urls: string[]) => {
      cards.replaceAll(urls.map((imageUrl) => (fromUrl ? fromUrl(imageUrl) : { ...blank(), imageUrl })));
      return Math.min(urls.length, cards.limits.max);
    },
    [cards, blank, fromUrl],
  );
  const urls = useGetUrls({
    endpoint: urlsEndpoint,
    onUrls,
    successToast: toasts.urls ?? urlsRetrievedToast,
    failureToast: toasts.urlsFailed ?? urlsFailedToast,
  });
  const { blocked } = useLibraryFit(slug, { enabled: library !== undefined });
  const complete = cards.items.filter(isComplete);
  const [outputDrive] = useToolDrives(slug, 'output');
  const choices = useToolsBySlug().get(slug)?.choices ?? {};
  const update = (card: C) => (patch: Partial<Omit<C, 'id'>>) => cards.update(card.id, patch);
  const select = (card: C) => (key: CardSelect<C>['key']) => {
    const spec = selects.find((entry) => entry.key === key);
    if (!spec) return null;
    return (
      <SelectField
        key={key}
        id={`${card.id}-${spec.id}`}
        label={spec.label}
        placeholder={spec.placeholder}
        value={String(card[key])}
        options={choices[spec.choices] ?? []}
        optionLabel={spec.optionLabel}
        onChange={(value) => update(card)({ [key]: value } as Partial<Omit<C, 'id'>>)}
      />
    );
  };

  const run = () => {
    if (complete.length === 0) {
      if (incomplete) toast(noValidCardsToast(incomplete));
      return;
    }
    batch.run(
      complete.map((card) => card.id),
      complete.map(toPayload),
    );
  };
  const startNew = () => {
    cards.reset();
    batch.startNew();
  };

  const blockedId = `${slug}-blocked`;
  const runButton = (
    <>
      <button
        type="button"
        className="primary-button"
        onClick={run}
        disabled={processing || !ready(cards.items) || blocked !== null || (readyPanel !== undefined && complete.length === 0)}
        aria-describedby={blocked ? blockedId : undefined}
      >
        {runLabel}
      </button>
      <RunBlockedReason id={blockedId} reason={blocked} />
    </>
  );

  return (
    <ToolPage slug={slug} busy={processing}>
      {library ? <ModelLibraryNotice purpose={library.purpose} tool={slug} /> : null}
      <div className="tool-workspace">
        <div className="prep-note">{prep}</div>
        <div className="tool-toolbar">
          <DriveLinks tool={slug} />
          <button type="button" className="secondary-button" onClick={() => void urls.fetchUrls()} disabled={urls.loading || processing}>
            {urls.loading ? 'Fetching…' : 'Get URLs'}
          </button>
        </div>
        <CardGrid
          list={cards}
          addLabel={addLabel}
          cardLabel={cardLabel}
          disabled={processing}
          renderCard={(card) => (
            <>
              {imageLabel ? (
                <ImageUrlInput
                  label={imageLabel}
                  mode="card"
                  value={card.imageUrl}
                  onChange={(imageUrl) => cards.update(card.id, { imageUrl } as Partial<Omit<C, 'id'>>)}
                />
              ) : null}
              {fields ? fields(card, update(card), select(card)) : selects.map((spec) => select(card)(spec.key))}
              <CardErrors messages={batch.fieldErrors.get(card.id)} />
            </>
          )}
        />
        {batch.errorMessage ? (
          <p className="form-error" role="alert">
            {batch.errorMessage}
          </p>
        ) : null}
        <div className="run-area">
          {readyPanel ? (
            <section className="ready-panel" aria-labelledby="ready-title">
              <div>
                <h2 id="ready-title">Ready to Process</h2>
                <p className="muted">{readyPanel(complete.length, cards.count)}</p>
              </div>
              {runButton}
            </section>
          ) : (
            runButton
          )}
        </div>
        {batch.batch && batch.phase !== 'success' ? <BatchProgress key={batch.batch.batch_id} batch={batch.batch} title="Last batch" /> : null}
        <JobLog tool={slug} refreshKey={batch.batch?.batch_id} />
        {processing ? <ProcessingOverlay title={`Processing Your ${name} Requests`} message={overlayMessage} /> : null}
        {batch.phase === 'success' && batch.batch ? (
          <BatchDoneOverlay batch={batch.batch} onStartNew={startNew} startNewLabel={startNewLabel} outputDrive={outputDrive} />
        ) : null}
      </div>
    </ToolPage>
  );
}

type BatchDoneOverlayProps = {
  batch: BatchSubmitted;
  outputDrive?: Drive;
  startNewLabel: string;
  onStartNew: () => void;
};

/** The overlay after a submit, following the batch: how many jobs are done while they run, the
 * spec's success texts once all succeeded, else what failed, each failure's reason listed under it. */
function BatchDoneOverlay({ batch, outputDrive, startNewLabel, onStartNew }: BatchDoneOverlayProps) {
  const query = useBatchJobs(batch.batch_id, batch.jobs);
  const jobs = query.data?.results ?? batch.jobs;
  const outcome = batchOutcome(summarizeBatch(jobs), { title: 'Success!', message: SUCCESS_MESSAGE });
  return (
    <SuccessOverlay outputDrive={outputDrive} startNewLabel={startNewLabel} onStartNew={onStartNew} title={outcome.title} message={outcome.message} tone={outcome.tone}>
      <BatchProgress key={batch.batch_id} batch={batch} />
    </SuccessOverlay>
  );
}

/** Per-card errors from the server's 400, under the card. */
export function CardErrors({ messages }: { messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <ul className="card-errors" role="alert">
      {messages.map((message) => (
        <li key={message} className="field-error small">
          {message}
        </li>
      ))}
    </ul>
  );
}

/** A labelled select with a placeholder option (the card tools' dropdowns); `label` gives an option's text. */
export function SelectField({
  id,
  label,
  value,
  options,
  placeholder,
  onChange,
  optionLabel = (option) => option,
  disabled,
}: {
  id: string;
  label: string;
  value: string;
  options: readonly string[];
  placeholder: string;
  onChange: (value: string) => void;
  optionLabel?: (option: string) => string;
  disabled?: boolean;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} disabled={disabled} onChange={(event) => onChange(event.target.value)}>
        <Options items={options} value={(option) => option} label={optionLabel} blank={placeholder} />
      </select>
    </div>
  );
}
