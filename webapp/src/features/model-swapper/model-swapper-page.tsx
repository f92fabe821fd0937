import { useState } from 'react';

import { ImageUrlInput } from '@/components/tool/image-url-input';
import { EMPTY_LIBRARY } from '@/components/tool/model-library-notice';
import { StatusBar } from '@/components/tool/status-bar';
import { type LogLine, SystemLog } from '@/components/tool/system-log';
import { ToolPage } from '@/components/tool/tool-page';
import { ApiError, apiClient } from '@/lib/api-client';
import { downloadFile, isHttpUrl, toImageSrc } from '@/lib/editorial';
import { useLibraryModels } from '@/lib/library-models';
import '@/components/tool/studio.css';

export const SWAP_MISSING = 'Provide a photo URL and choose a model.';
export const SWAP_BAD_URL = 'The photo URL must be an http or https link.';

type SwapAnswer = { success?: boolean; image_data?: { data?: string }; url?: string; job_id?: string };
type SwapResult = { src: string; filename: string };

/**
 * The re-cast photo is a JPEG: its base64 starts with '/9j/', which toImageSrc would take for a
 * same-origin path, so it gets its own data URL (and the download its .jpg name).
 */
export function swapResult(answer: SwapAnswer | null): SwapResult | null {
  const data = answer?.image_data?.data?.trim();
  if (data?.startsWith('/9j/')) return { src: `data:image/jpeg;base64,${data}`, filename: 'model-swap.jpg' };
  if (data) return { src: toImageSrc(data), filename: 'model-swap.png' };
  return answer?.url ? { src: answer.url, filename: 'model-swap.jpg' } : null;
}

export function ModelSwapperPage() {
  const models = useLibraryModels();
  const [imageUrl, setImageUrl] = useState('');
  const [modelId, setModelId] = useState('');
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<SwapResult | null>(null);
  const [lines, setLines] = useState<LogLine[]>([]);
  const list = models.data ?? [];

  const run = async () => {
    const url = imageUrl.trim();
    if (!url || !modelId) {
      setLines((current) => [...current, { level: 'alert', text: SWAP_MISSING }]);
      return;
    }
    if (!isHttpUrl(url)) {
      setLines((current) => [...current, { level: 'alert', text: SWAP_BAD_URL }]);
      return;
    }
    setRunning(true);
    setResult(null);
    setLines([{ level: 'log', text: 'Request sent. Waiting for result…' }]);
    try {
      const answer = await apiClient.post<SwapAnswer>('/api/model-swap/process', { image_url: url, modelId });
      const swapped = swapResult(answer);
      if (!swapped) throw new Error('The answer carried no image.');
      setResult(swapped);
      setLines((current) => [...current, { level: 'log', text: 'Result ready.' }]);
    } catch (error) {
      const message = error instanceof ApiError || error instanceof Error ? error.message : 'Unknown error';
      setLines((current) => [...current, { level: 'error', text: message }]);
    } finally {
      setRunning(false);
    }
  };

  return (
    <ToolPage slug="model-swap" statusBar={<StatusBar processing={running} queue={running ? 1 : 0} eta={running ? '~15s' : '—'} />}>
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
            <button type="button" className="primary-button" onClick={() => void run()} disabled={running || !list.length}>
              {running ? 'Running...' : 'Run'}
            </button>
          </div>
          {lines.length ? <SystemLog lines={lines} /> : null}
        </section>
        <section className="studio-section" aria-label="Result">
          <h2>Result</h2>
          {result ? (
            <>
              <img className="result-media" src={result.src} alt="Model swap result" />
              <button type="button" className="secondary-button" onClick={() => downloadFile(result.src, result.filename)}>
                Download
              </button>
            </>
          ) : (
            <p className="muted result-placeholder">The re-cast photo shows here.</p>
          )}
        </section>
      </div>
    </ToolPage>
  );
}
