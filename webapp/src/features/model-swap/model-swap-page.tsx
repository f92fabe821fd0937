import { useEffect, useRef, useState } from 'react';

import { failureLines } from '@/components/tool/direct-tool-page';
import { ImageUrlInput } from '@/components/tool/image-url-input';
import { JobLog } from '@/components/tool/job-log';
import { DirectResult, JobProgress } from '@/components/tool/job-result';
import { EMPTY_LIBRARY, ModelLibraryNotice, RunBlockedReason } from '@/components/tool/model-library-notice';
import { type LogLine, SystemLog, useSystemLog } from '@/components/tool/system-log';
import { ToolPage } from '@/components/tool/tool-page';
import { useDirectJob } from '@/lib/direct-jobs';
import { isHttpUrl } from '@/lib/editorial';
import { fitOf, useLibraryFit, useLibraryModels } from '@/lib/library-models';
import '@/components/tool/studio.css';

export const SWAP_MISSING = 'Provide a photo URL and choose a model.';
export const SWAP_BAD_URL = 'The photo URL must be an http or https link.';
export const SWAP_SENT = 'Request sent. Waiting for result…';
export const SWAP_READY = 'Result ready.';

/** A catalogue photo re-cast with a library model: the job's real progress, queue and ETA. */
export function ModelSwapperPage() {
  const models = useLibraryModels();
  const [imageUrl, setImageUrl] = useState('');
  const [modelId, setModelId] = useState('');
  const log = useSystemLog();
  const direct = useDirectJob('/api/model-swap/process');
  const settled = useRef<string | null>(null);
  const running = direct.phase === 'running';
  const list = models.data ?? [];
  // Model Swap runs the Remodel engine: a chosen model whose photo it would refuse is said here.
  const { blocked: noneFit } = useLibraryFit('remodel');
  const chosen = list.find((model) => model.id === modelId);
  const chosenFit = chosen ? fitOf(chosen, 'remodel') : null;
  const blocked = noneFit ?? (chosen && chosenFit && !chosenFit.ok ? `${chosen.name}: ${chosenFit.reason ?? ''}` : null);

  // Report each outcome once.
  useEffect(() => {
    const key = `${direct.phase}:${direct.job?.id ?? 'request'}`;
    if ((direct.phase !== 'done' && direct.phase !== 'failed') || settled.current === key) return;
    settled.current = key;
    const more: LogLine[] =
      direct.phase === 'done' ? [{ level: 'log', text: SWAP_READY }] : failureLines(direct.requestError, direct.job, 'The swap threw an exception.');
    log.add(...more);
  }, [direct.phase, direct.job, direct.requestError]);

  const run = () => {
    const url = imageUrl.trim();
    const refusal = !url || !modelId ? SWAP_MISSING : isHttpUrl(url) ? null : SWAP_BAD_URL;
    if (refusal) {
      log.alert(refusal);
      return;
    }
    settled.current = null;
    log.restart([{ level: 'log', text: SWAP_SENT }]);
    void direct.run({ image_url: url, modelId });
  };

  const startNew = () => {
    direct.reset();
    settled.current = null;
    setImageUrl('');
    setModelId('');
    log.restart([]);
  };

  return (
    <ToolPage slug="model-swap" busy={running}>
      <div className="studio model-swapper">
        <section className="studio-section" aria-label="Request">
          <ImageUrlInput label="Photo URL" value={imageUrl} onChange={setImageUrl} disabled={running} />
          <fieldset className="model-picker">
            <legend>Model</legend>
            {models.isLoading ? <p className="muted small">Loading models…</p> : null}
            {models.isError ? <p className="field-error">The model library could not be loaded.</p> : null}
            {models.data && !list.length ? (
              <p className="notice notice-warning" role="note">
                {EMPTY_LIBRARY} The model swapper re-casts your photo with one of them.
              </p>
            ) : null}
            <ModelLibraryNotice tool="remodel" />
            <ul className="model-grid">
              {list.map((model) => (
                <li key={model.id}>
                  <label className={`model-card${modelId === model.id ? ' is-selected' : ''}`}>
                    <input type="radio" name="swap-model" value={model.id} checked={modelId === model.id} disabled={running} onChange={() => setModelId(model.id)} />
                    <img src={model.image} alt="" />
                    <span>
                      {model.name}
                      <span className="muted small">
                        {' '}
                        · {model.gender} · {model.height_cm} cm
                      </span>
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
          <div className="run-area">
            <button
              type="button"
              className="primary-button"
              onClick={run}
              disabled={running || !list.length || blocked !== null}
              aria-describedby={blocked ? 'swap-blocked' : undefined}
            >
              {running ? 'Running...' : 'Run'}
            </button>
            <RunBlockedReason id="swap-blocked" reason={blocked} />
          </div>
          {running || direct.phase === 'done' ? <JobProgress progress={direct.progress} job={direct.job} /> : null}
          {log.lines.length ? <SystemLog lines={log.lines} /> : null}
        </section>
        <DirectResult
          className="studio-section"
          direct={direct}
          alt="Model swap result"
          downloadLabel="Download"
          newLabel="New Swap"
          onStartNew={startNew}
          placeholder="The re-cast photo shows here."
        />
      </div>
      <JobLog tool="model-swap" />
    </ToolPage>
  );
}
