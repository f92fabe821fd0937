import { type ChangeEvent, useReducer, useRef, useState } from 'react';

import { JobEngineLabel, answerJobId } from '@/components/tool/engine-label';
import { ExamplesGallery, Lightbox, type Example } from '@/components/tool/examples-gallery';
import { StatusBar } from '@/components/tool/status-bar';
import { JobLog } from '@/components/tool/job-log';
import { ToolPage } from '@/components/tool/tool-page';
import { useToast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import {
  type FieldValues,
  PresetFileError,
  downloadFile,
  downloadJson,
  etaText,
  hasPreviewExtension,
  initialParamState,
  isHttpUrl,
  isJsonFile,
  normaliseResults,
  paramReducer,
  parsePreset,
  readFileText,
  useCameraTemplates,
  useCountdown,
} from '@/lib/editorial';
import { statusText } from '@/lib/http-status';
import { usePost } from '@/lib/submit';
import '@/components/tool/studio.css';

export type StudioField = 'sceneComposition' | 'poseAction' | 'lighting' | 'colorStyle' | 'cameraDetails' | 'outfitChanges' | 'modelFeatures';

type FieldSpec = { key: StudioField; label: string; placeholder: string };

export const INVALID_URL = { title: 'Invalid URL', description: 'Please enter a valid HTTP/HTTPS URL' };
export const CORS_MESSAGE = 'Connection failed. This is likely a CORS issue - the webhook endpoint needs to allow requests from this domain.';
export const PRESET_LOADED = { title: 'Preset Loaded', description: 'Preset has been applied to the form successfully' };
export const LEAD = 'Generate a fashion editorial photograph.';

export type StudioConfig = {
  slug: string;
  baseLabel: string;
  basePlaceholder: string;
  processLabel: string;
  /** 02 Creative Parameters. */
  creative: FieldSpec[];
  /** 04 Advanced Options (Beta); absent on Tonelab. */
  advanced?: FieldSpec[];
  /** Fields of the preset file, in order. */
  presetFields: readonly StudioField[];
  /** Fields joined (when non-empty) into original_prompt; the analysis answer fills them. */
  promptFields: readonly StudioField[];
  /** Tonelab passes the reference image on to the generation. */
  sendsReference?: boolean;
  baseInvalid: { title: string; description: string };
  presetInvalid: { title: string; description: string };
  generationFallback: string;
  success: { title: string; description: string };
};

/** A field's API name: sceneComposition is scene_composition. */
const apiName = (field: StudioField) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** POST /api/<slug>/generate: the base, the preset fields by API name, the lead and the prompt. */
function generationBody(config: StudioConfig, values: FieldValues<StudioField>, base: string, reference: string, originalPrompt: string) {
  return {
    outfit: base,
    ...(config.sendsReference && reference ? { reference } : {}),
    ...Object.fromEntries(config.presetFields.map((field) => [apiName(field), values[field]])),
    lead: LEAD,
    original_prompt: originalPrompt,
  };
}

const ALL_FIELDS: StudioField[] = ['sceneComposition', 'poseAction', 'lighting', 'colorStyle', 'cameraDetails', 'outfitChanges', 'modelFeatures'];

function UrlPreview({ url, alt }: { url: string; alt: string }) {
  const [failed, setFailed] = useState(false);
  if (!hasPreviewExtension(url)) return null;
  return (
    <div className="studio-preview">
      {failed ? <span className="image-error">Failed to load</span> : <img src={url.trim()} alt={alt} onError={() => setFailed(true)} />}
    </div>
  );
}

function errorDetail(error: unknown): string | null {
  if (error instanceof ApiError) {
    const head = `HTTP ${error.status}`;
    // A failed job (422) says why; keep it after the status.
    return error.status === 422 && error.message ? `${head}: ${error.message}` : head;
  }
  return null;
}

export function EditorialStudio({ config }: { config: StudioConfig }) {
  const { toast } = useToast();
  const templates = useCameraTemplates();
  const [state, dispatch] = useReducer(paramReducer<StudioField>, ALL_FIELDS, initialParamState);
  const [base, setBase] = useState('');
  const [reference, setReference] = useState('');
  const analyzer = usePost<unknown>(`/api/${config.slug}/analyze`);
  const generation = usePost<unknown>(`/api/${config.slug}/generate`);
  const analyzing = analyzer.isPending;
  const processing = generation.isPending;
  const [template, setTemplate] = useState('Custom');
  const [results, setResults] = useState<string[]>([]);
  // The job that made the results, when the answer names it: its label says which engine.
  const [resultJob, setResultJob] = useState<string | null>(null);
  const [generatedFrom, setGeneratedFrom] = useState<Example[]>([]);
  const [expanded, setExpanded] = useState<Example | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const seconds = useCountdown(processing);
  const { values } = state;
  const touched = new Set(state.touched);

  const analyze = async () => {
    const url = reference.trim();
    if (!url || analyzing) return;
    if (!isHttpUrl(url)) {
      toast({ ...INVALID_URL, variant: 'destructive' });
      return;
    }
    try {
      const answer = await analyzer.mutateAsync({ image_reference: url });
      const first = (Array.isArray(answer) ? answer[0] : answer) as Record<string, unknown> | undefined;
      const analysis: Partial<FieldValues<StudioField>> = {};
      for (const field of config.promptFields) {
        const text = first?.[apiName(field)];
        if (typeof text === 'string') analysis[field] = text;
      }
      dispatch({ type: 'analysis', analysis });
      toast({ title: 'Analysis complete', description: 'Reference image analyzed successfully' });
    } catch (error) {
      if (error instanceof TypeError) toast({ title: 'Webhook error', description: CORS_MESSAGE, variant: 'destructive' });
      else if (error instanceof ApiError) toast({ title: 'Webhook error', description: `HTTP ${error.status}: ${statusText(error)}`, variant: 'destructive' });
      else toast({ title: 'Webhook error', description: 'Analysis failed', variant: 'destructive' });
    }
  };

  const process = async () => {
    const url = base.trim();
    if (!url || processing) return;
    if (!isHttpUrl(url)) {
      toast({ ...config.baseInvalid, variant: 'destructive' });
      return;
    }
    const ref = isHttpUrl(reference) ? reference.trim() : '';
    const originalPrompt = config.promptFields.map((field) => values[field].trim()).filter(Boolean).join('\n');
    setResults([]);
    try {
      const answer = await generation.mutateAsync(generationBody(config, values, url, ref, originalPrompt));
      const images = normaliseResults(answer, 3);
      if (!images.length) throw new Error(config.generationFallback);
      setResults(images);
      setResultJob(answerJobId(answer));
      setGeneratedFrom([{ src: url, alt: config.baseLabel }, ...(ref ? [{ src: ref, alt: 'Reference Image' }] : [])]);
      toast(config.success);
    } catch (error) {
      toast({ title: 'Generation failed', description: errorDetail(error) ?? config.generationFallback, variant: 'destructive' });
    }
  };

  const onPresetFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    try {
      if (!isJsonFile(file)) throw new PresetFileError('not a .json file');
      const preset = parsePreset(await readFileText(file), config.presetFields);
      dispatch({ type: 'preset', values: { ...values, ...preset } });
      toast(PRESET_LOADED);
    } catch {
      toast({ ...config.presetInvalid, variant: 'destructive' });
    }
  };

  const downloadPreset = () => {
    const name = window.prompt('Enter a name for this preset:');
    if (name === null || !name.trim()) return;
    downloadJson(Object.fromEntries(config.presetFields.map((field) => [field, values[field]])), `${name.trim()}.json`);
    toast({ title: 'Preset Downloaded', description: `"${name.trim()}" saved successfully` });
  };

  const chooseTemplate = (title: string, text: string) => {
    setTemplate(title);
    dispatch({ type: 'template', field: 'cameraDetails', text, custom: title === 'Custom' });
  };

  const field = (spec: FieldSpec) => (
    <div className="field" key={spec.key}>
      <label htmlFor={`${config.slug}-${spec.key}`}>
        {spec.label}
        {touched.has(spec.key) ? <span className="touched-mark"> (edited)</span> : null}
      </label>
      <textarea
        id={`${config.slug}-${spec.key}`}
        rows={3}
        value={values[spec.key]}
        placeholder={spec.placeholder}
        onChange={(event) => dispatch({ type: 'edit', field: spec.key, value: event.target.value })}
      />
    </div>
  );

  const analysisEntries = state.analysis ? (Object.entries(state.analysis) as [StudioField, string][]) : [];
  const labelOf = (key: StudioField) => [...config.creative, ...(config.advanced ?? []), { key: 'cameraDetails', label: 'Camera Details' }].find((spec) => spec.key === key)?.label ?? key;

  return (
    <ToolPage
      slug={config.slug}
      statusBar={<StatusBar processing={processing} queue={processing ? 1 : 0} eta={processing ? etaText(seconds) : '—'} />}
    >
      <div className="studio">
        <section className="studio-section" aria-labelledby={`${config.slug}-s1`}>
          <h2 id={`${config.slug}-s1`}>
            <span className="step-number">01</span> Upload Your Images
          </h2>
          <div className="studio-columns">
            <div className="field">
              <label htmlFor={`${config.slug}-base`}>{config.baseLabel}</label>
              <input id={`${config.slug}-base`} type="url" value={base} placeholder={config.basePlaceholder} onChange={(event) => setBase(event.target.value)} />
              <UrlPreview key={base.trim()} url={base} alt={`${config.baseLabel} preview`} />
            </div>
            <div className="field">
              <label htmlFor={`${config.slug}-reference`}>Reference Image URL (optional)</label>
              <div className="input-row">
                <input
                  id={`${config.slug}-reference`}
                  type="url"
                  value={reference}
                  placeholder="https://… a look whose mood you like"
                  onChange={(event) => setReference(event.target.value)}
                  onKeyDown={(event) => {
                    if (event.key === 'Enter') {
                      event.preventDefault();
                      void analyze();
                    }
                  }}
                />
                <button type="button" className="primary-button" onClick={() => void analyze()} disabled={analyzing || !reference.trim()}>
                  {analyzing ? 'ANALYZING...' : 'ANALYZE'}
                </button>
              </div>
              <UrlPreview key={reference.trim()} url={reference} alt="Reference image preview" />
              {state.analysis ? (
                <div className="analysis-box" role="region" aria-label="Analysis Complete">
                  <div className="analysis-head">
                    <strong>Analysis Complete</strong>
                    <button type="button" className="secondary-button" onClick={() => dispatch({ type: 'refill' })}>
                      Refill Fields
                    </button>
                  </div>
                  <dl>
                    {analysisEntries.map(([key, text]) => (
                      <div key={key}>
                        <dt>{labelOf(key)}</dt>
                        <dd>{text}</dd>
                      </div>
                    ))}
                  </dl>
                </div>
              ) : null}
            </div>
          </div>
        </section>

        <section className="studio-section" aria-labelledby={`${config.slug}-s2`}>
          <h2 id={`${config.slug}-s2`}>
            <span className="step-number">02</span> Creative Parameters
          </h2>
          <div className="studio-actions">
            <button type="button" className="secondary-button" onClick={() => dispatch({ type: 'refill' })} disabled={!state.analysis}>
              Refill from Analysis
            </button>
            <button type="button" className="secondary-button" onClick={() => fileRef.current?.click()}>
              Upload Preset
            </button>
            <input ref={fileRef} type="file" accept=".json,application/json" hidden data-testid="preset-file" onChange={(event) => void onPresetFile(event)} />
            <button
              type="button"
              className="secondary-button"
              onClick={() => {
                dispatch({ type: 'reset' });
                setTemplate('Custom');
              }}
            >
              Reset Fields
            </button>
          </div>
          <div className="studio-grid">{config.creative.map(field)}</div>
        </section>

        <section className="studio-section" aria-labelledby={`${config.slug}-s3`}>
          <h2 id={`${config.slug}-s3`}>
            <span className="step-number">03</span> Camera Style Templates
          </h2>
          <ul className="template-grid" aria-label="Camera templates">
            {(templates.data ?? []).map((item) => (
              <li key={item.title}>
                <button
                  type="button"
                  className={`template-card${template === item.title ? ' is-selected' : ''}`}
                  aria-pressed={template === item.title}
                  onClick={() => chooseTemplate(item.title, item.camera_details)}
                >
                  {item.title}
                </button>
              </li>
            ))}
          </ul>
          {templates.isError ? <p className="field-hint field-error">Camera templates could not be loaded.</p> : null}
          {field({ key: 'cameraDetails', label: 'Camera Details', placeholder: 'Lens, film stock, grain, depth of field…' })}
        </section>

        {config.advanced ? (
          <section className="studio-section" aria-labelledby={`${config.slug}-s4`}>
            <h2 id={`${config.slug}-s4`}>
              <span className="step-number">04</span> Advanced Options <span className="badge badge-beta">Beta</span>
            </h2>
            <div className="studio-grid">{config.advanced.map(field)}</div>
          </section>
        ) : null}

        <section className="ready-bar" aria-label="Ready to Process">
          <div>
            <h2>Ready to Process</h2>
            <p className="muted small">{processing ? 'Generating three images…' : 'Three images per run.'}</p>
          </div>
          {processing ? (
            <span className="eta-countdown" aria-live="polite">
              {etaText(seconds)}
            </span>
          ) : null}
          <div className="studio-actions">
            <button type="button" className="secondary-button" onClick={downloadPreset}>
              Download Preset
            </button>
            <button type="button" className="primary-button" onClick={() => void process()} disabled={processing || !base.trim()}>
              {processing ? 'Processing...' : config.processLabel}
            </button>
          </div>
        </section>

        {results.length ? (
          <section className="studio-section" aria-labelledby={`${config.slug}-s5`}>
            <h2 id={`${config.slug}-s5`}>
              <span className="step-number">05</span> Results
            </h2>
            <ul className="result-grid">
              {results.map((src, index) => (
                <li key={index} className="result-card">
                  <img src={src} alt={`Result ${index + 1}`} />
                  <JobEngineLabel jobId={resultJob} />
                  <div className="studio-actions">
                    <button type="button" className="secondary-button" onClick={() => downloadFile(src, `${config.slug}_${index + 1}.jpg`)}>
                      Download
                    </button>
                    <button type="button" className="secondary-button" onClick={() => setExpanded({ src, alt: `Result ${index + 1}` })}>
                      Expand
                    </button>
                  </div>
                </li>
              ))}
            </ul>
            <div className="studio-actions">
              <button type="button" className="secondary-button" onClick={() => results.forEach((src, index) => downloadFile(src, `${config.slug}_${index + 1}.jpg`))}>
                Download All
              </button>
              <button
                type="button"
                className="primary-button"
                onClick={() => {
                  setResults([]);
                  setGeneratedFrom([]);
                }}
              >
                New Generation
              </button>
            </div>
            {generatedFrom.length ? <ExamplesGallery title="Generated From" examples={generatedFrom} /> : null}
          </section>
        ) : null}
      </div>
      <JobLog tool={config.slug} />
      {expanded ? <Lightbox example={expanded} onClose={() => setExpanded(null)} /> : null}
    </ToolPage>
  );
}
