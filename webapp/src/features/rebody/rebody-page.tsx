import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';

import { SelectField } from '@/components/tool/card-tool-page';
import { ImageUrlInput } from '@/components/tool/image-url-input';
import { JobLog } from '@/components/tool/job-log';
import { DownloadLink, OutputMedia, ResultEngine } from '@/components/tool/job-result';
import { JobOverlay } from '@/components/tool/overlays';
import { StatusBar } from '@/components/tool/status-bar';
import { SystemLog, useSystemLog } from '@/components/tool/system-log';
import { ToolPage } from '@/components/tool/tool-page';
import { TRY_ON_TICKER, useDirectJob } from '@/lib/direct-jobs';
import { formatEta } from '@/lib/format';
import { useToolChoices } from '@/lib/tools';

export const REBODY_MISSING = 'Provide both Full Body Look Image URL and Body Type.';
export const REBODY_BAD_URL = 'The image URL must start with http and end with an image extension.';
export const REBODY_OVERLAY = 'Processing Your Rebody Request';

/** Valid only if it starts with http and ends with an image extension (spec part 1, §5). */
export function isRebodyImageUrl(text: string): boolean {
  const value = text.trim();
  if (!value.startsWith('http')) return false;
  let path = value;
  try {
    path = new URL(value).pathname;
  } catch {
    return false;
  }
  return /\.(jpe?g|png|gif|bmp|webp)$/i.test(path);
}

const PREP = [
  'One person, full body, head to feet in frame.',
  'Plain or simple background, even light.',
  'Front view; arms slightly away from the body.',
  'A direct link to the image (jpg, png, webp…).',
];

export function RebodyPage() {
  const [params] = useSearchParams();
  const bodyTypes = useToolChoices('rebody', 'target_bodytype');
  const [imageUrl, setImageUrl] = useState(() => params.get('image_url') ?? params.get('url') ?? '');
  const [bodyType, setBodyType] = useState(() => {
    const asked = params.get('target_bodytype') ?? params.get('bodytype') ?? params.get('body_type') ?? '';
    return bodyTypes.find((type) => type.toLowerCase() === asked.trim().toLowerCase()) ?? '';
  });
  const [submittedUrl, setSubmittedUrl] = useState('');
  const log = useSystemLog();
  const direct = useDirectJob('/api/rebody/process', TRY_ON_TICKER);
  const running = direct.phase === 'running';
  const reported = useRef<string | null>(null);
  const autoRan = useRef(false);

  const run = (url = imageUrl, type = bodyType) => {
    const trimmed = url.trim();
    const refusal = !trimmed || !type ? REBODY_MISSING : isRebodyImageUrl(trimmed) ? null : REBODY_BAD_URL;
    if (refusal) {
      log.alert(refusal);
      return;
    }
    reported.current = null;
    setSubmittedUrl(trimmed);
    log.restart([{ level: 'log', text: 'Request sent. Waiting for result…' }]);
    void direct.run({ image_url: trimmed, target_bodytype: type, specs: '' });
  };

  // It runs by itself when the link already carries a URL and a body type.
  useEffect(() => {
    if (autoRan.current) return;
    autoRan.current = true;
    if (imageUrl.trim() && bodyType) run();
    // once, on load
  }, []);

  useEffect(() => {
    const key = `${direct.phase}:${direct.job?.id ?? 'request'}`;
    if ((direct.phase !== 'done' && direct.phase !== 'failed') || reported.current === key) return;
    reported.current = key;
    if (direct.phase === 'done') {
      log.add({ level: 'log', text: direct.output ? 'Result ready.' : 'Request sent. Response: no output.' });
    } else {
      const message = direct.job?.error?.message || (direct.requestError instanceof Error ? direct.requestError.message : '') || 'Unknown error';
      log.add({ level: 'error', text: message });
    }
  }, [direct.phase, direct.job, direct.output, direct.requestError]);

  const statusBar = (
    <StatusBar
      processing={running}
      queue={running ? 1 : 0}
      eta={running ? (typeof direct.job?.eta_seconds === 'number' ? formatEta(direct.job.eta_seconds) : '~1-2m') : '—'}
    />
  );

  return (
    <ToolPage slug="rebody" statusBar={statusBar}>
      <div className="tool-workspace rebody">
        <section className="prep-note" aria-labelledby="rebody-prep">
          <h2 id="rebody-prep">Before you start</h2>
          <ul className="checklist">
            {PREP.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ul>
        </section>
        <section className="rebody-form" aria-label="Request">
          <ImageUrlInput label="Full Body Look Image URL" value={imageUrl} onChange={setImageUrl} disabled={running} />
          <SelectField
            id="rebody-bodytype"
            label="Body Type"
            placeholder="Select body type"
            value={bodyType}
            options={bodyTypes}
            disabled={running}
            onChange={setBodyType}
          />
          <div className="run-area">
            <button type="button" className="primary-button" onClick={() => run()} disabled={running}>
              Run
            </button>
          </div>
          {log.lines.length ? <SystemLog lines={log.lines} /> : null}
        </section>
        <section className="rebody-results" aria-label="Results">
          <figure className="result-panel">
            <figcaption>Original</figcaption>
            {submittedUrl ? <img className="result-media" src={submittedUrl} alt="Original look" /> : <p className="muted result-placeholder">The original shows here.</p>}
          </figure>
          <figure className="result-panel">
            <figcaption>Result</figcaption>
            {direct.output ? <OutputMedia output={direct.output} alt="Rebody result" /> : <p className="muted result-placeholder">The result shows here.</p>}
            {direct.output ? <ResultEngine job={direct.job} /> : null}
          </figure>
          {direct.output ? (
            <div className="result-actions">
              <DownloadLink output={direct.output} label="Download" />
            </div>
          ) : null}
        </section>
      </div>
      <JobLog tool="rebody" />
      {running ? (
        <JobOverlay title={REBODY_OVERLAY} message="This usually takes about 15 seconds." progress={direct.progress} job={direct.job} />
      ) : null}
    </ToolPage>
  );
}
