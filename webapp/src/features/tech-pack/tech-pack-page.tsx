import { type ChangeEvent, useEffect, useState } from 'react';

import { JobLog } from '@/components/tool/job-log';
import { ToolPage } from '@/components/tool/tool-page';
import { Markdown } from '@/components/ui/markdown';
import { ProgressBar } from '@/components/ui/progress-bar';
import { useToast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { readFileDataUrl, stripDataPrefix, toImageSrc } from '@/lib/editorial';
import { usePost } from '@/lib/submit';
import '@/components/tool/studio.css';

export const LOCK_TEXT = 'DESCRIPTION IS ONLY NEEDED TO GENERATE THE TECH PACK DESCRIPTION';
export const DESCRIBE_TIP = 'Description [Required] + Image [Optional] → Get Tech Pack Description';
export const PROCESS_TIP = 'You must complete "Get Tech Pack Description"';
const STEP1_TICK_MS = 200;
const STEP2_TICK_MS = 420;
const CAP = 95;

/** +1 % per tick up to 95 while `running`. */
function useCreep(running: boolean, tickMs: number, setValue: (update: (value: number) => number) => void) {
  useEffect(() => {
    if (!running) return undefined;
    // A tick may still fire after the step has ended and set 100 (the mutation's isPending
    // turns false a render later): it never takes a value at or past CAP back down.
    const timer = window.setInterval(() => setValue((value) => (value >= CAP ? value : Math.min(CAP, value + 1))), tickMs);
    return () => window.clearInterval(timer);
  }, [running, tickMs, setValue]);
}

function failure(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return error.status === 422 && error.message ? error.message : `HTTP error! status: ${error.status}`;
  if (error instanceof Error && error.message) return error.message;
  return fallback;
}

type ImageState = 'none' | 'loading' | 'ready' | 'failed';

type TechStepProps = {
  /** The button's text: to start, while running, once done. */
  labels: [string, string, string];
  tip: string;
  onRun: () => void;
  /** The step before it is not done yet. */
  waiting: boolean;
  running: boolean;
  done: boolean;
  progress: number;
  progressLabel: string;
  typical: string;
};

/** One of the two steps: its button, then its progress once it has started. */
function TechStep({ labels: [start, busy, finished], tip, onRun, waiting, running, done, progress, progressLabel, typical }: TechStepProps) {
  return (
    <div className="tech-step">
      <button type="button" className="primary-button" title={tip} onClick={onRun} disabled={waiting || running || done}>
        {running ? busy : done ? finished : start}
      </button>
      {running || done ? (
        <>
          <ProgressBar value={progress} label={progressLabel} />
          <p className="small muted">
            {typical} • {Math.round(progress)}%
          </p>
        </>
      ) : null}
    </div>
  );
}

export function TechPackPage() {
  const { toast } = useToast();
  const [description, setDescription] = useState('');
  const [image, setImage] = useState<string | null>(null);
  const [imageState, setImageState] = useState<ImageState>('none');
  const [techPack, setTechPack] = useState('');
  const [result, setResult] = useState<string | null>(null);
  const describing = usePost<{ description?: string }>('/api/tech-pack/description');
  const packing = usePost<{ image?: string }>('/api/tech-pack/process');
  const generating = describing.isPending;
  const processing = packing.isPending;
  const [progress1, setProgress1] = useState(0);
  const [progress2, setProgress2] = useState(0);
  const [step1Done, setStep1Done] = useState(false);
  const [step2Done, setStep2Done] = useState(false);
  const [editing, setEditing] = useState(false);
  const [fileKey, setFileKey] = useState(0);
  useCreep(generating, STEP1_TICK_MS, setProgress1);
  useCreep(processing, STEP2_TICK_MS, setProgress2);

  const onImage = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    setImageState('loading');
    try {
      setImage(await readFileDataUrl(file));
      setImageState('ready');
    } catch {
      setImage(null);
      setImageState('failed');
      toast({ title: 'Image Upload Failed', description: 'Could not process the image file', variant: 'destructive' });
    }
  };

  const describe = async () => {
    if (generating || step1Done) return;
    const text = description.trim();
    if (!text) {
      toast({ title: 'Description Required', description: 'Please enter a text description before proceeding', variant: 'destructive' });
      return;
    }
    setProgress1(0);
    try {
      const answer = await describing.mutateAsync({ description: text, ...(image ? { image: stripDataPrefix(image) } : {}) });
      setTechPack(answer?.description ?? '');
      setProgress1(100);
      setStep1Done(true);
      setEditing(false);
      toast({ title: '✅ Tech Pack Description Generated', description: 'You can now proceed to Step 2' });
    } catch (error) {
      setProgress1(0);
      toast({ title: '❌ Generation Failed', description: failure(error, 'An error occurred while generating the tech pack description'), variant: 'destructive' });
    }
  };

  const processPack = async () => {
    if (!step1Done || processing || step2Done) return;
    const text = techPack.trim();
    if (!text) {
      toast({ title: 'Step 1 Required', description: 'Please complete Step 1 before processing the tech pack', variant: 'destructive' });
      return;
    }
    setProgress2(0);
    try {
      const answer = await packing.mutateAsync({ tech_pack: text, ...(image ? { image: stripDataPrefix(image) } : {}) });
      if (!answer?.image) throw new Error('An error occurred while processing the tech pack');
      setResult(toImageSrc(answer.image));
      setProgress2(100);
      setStep2Done(true);
      toast({ title: '✅ Tech Pack Processed Successfully', description: 'Your result image is ready' });
    } catch (error) {
      setProgress2(0);
      toast({ title: '❌ Processing Failed', description: failure(error, 'An error occurred while processing the tech pack'), variant: 'destructive' });
    }
  };

  const startNew = () => {
    setDescription('');
    setImage(null);
    setImageState('none');
    setTechPack('');
    setResult(null);
    setProgress1(0);
    setProgress2(0);
    setStep1Done(false);
    setStep2Done(false);
    setEditing(false);
    setFileKey((key) => key + 1);
  };

  const workFromThis = () => {
    if (!result) return;
    setImage(result);
    setImageState('ready');
    setDescription('');
    setResult(null);
    setProgress2(0);
    setStep1Done(true);
    setStep2Done(false);
    toast({ title: 'Ready to Continue', description: 'Using the processed tech pack as your new reference image. You can now edit the tech pack and process again.' });
  };

  return (
    <ToolPage slug="tech-pack" busy={generating || processing}>
      <div className="studio tech-pack">
        <header className="tech-pack-head">
          <div>
            <h2>Tech Pack Lab</h2>
            <p className="muted">Transform garment descriptions and images into detailed tech packs.</p>
          </div>
          <p className="system-ready">
            <span className={`status-dot${generating || processing ? ' is-busy' : ''}`} aria-hidden="true" /> SYSTEM READY · Status: Beta
          </p>
        </header>
        <section className="prep-note" aria-label="How it works">
          <p>
            <strong>Step 1</strong> — describe the garment (and add a reference image if you have one), then Get Tech Pack Description. <strong>Step 2</strong> — review or
            edit the written tech pack, then Process Tech Pack for the result image. Each step can take 30-120 seconds.
          </p>
        </section>

        <div className="studio-columns">
          <div>
            <div className="field locked-field">
              <label htmlFor="tech-pack-description">Description (Required)</label>
              <textarea
                id="tech-pack-description"
                rows={6}
                value={description}
                disabled={step1Done}
                placeholder="Describe the garment you want to generate a tech pack for..."
                onChange={(event) => setDescription(event.target.value)}
              />
              {step1Done ? (
                <div className="lock-overlay" role="note">
                  {LOCK_TEXT}
                </div>
              ) : null}
            </div>
            <div className="field">
              <label htmlFor="tech-pack-image">Reference Image (Optional)</label>
              <input key={fileKey} id="tech-pack-image" type="file" accept="image/*" onChange={(event) => void onImage(event)} />
              <div className="tech-preview" style={{ height: 540 }}>
                {imageState === 'loading' ? <span className="muted">Loading...</span> : null}
                {imageState === 'failed' ? <span className="image-error">Failed to load</span> : null}
                {imageState === 'ready' && image ? <img src={image} alt="Reference image preview" onError={() => setImageState('failed')} /> : null}
              </div>
            </div>
          </div>
          <div>
            {step1Done ? (
              <section className="tech-panel" aria-labelledby="tech-pack-generated" style={{ height: 594 }}>
                <div className="analysis-head">
                  <h2 id="tech-pack-generated">Generated Tech Pack</h2>
                  <button type="button" className="secondary-button" onClick={() => setEditing((value) => !value)}>
                    {editing ? 'Done' : 'Edit'}
                  </button>
                </div>
                <p className="muted small">{editing ? "Click 'Done' to see the formatted version" : "Click 'Edit' to modify the tech pack description"}</p>
                {editing ? (
                  <textarea aria-label="Tech pack description" className="tech-editor" value={techPack} onChange={(event) => setTechPack(event.target.value)} />
                ) : (
                  <div className="tech-rendered">
                    <Markdown text={techPack} />
                  </div>
                )}
              </section>
            ) : null}
            <div className="tech-result">
              <h2>Result:</h2>
              <div className="tech-result-frame">{result ? <img src={result} alt="Tech pack result" /> : <span className="muted small">The result image shows here.</span>}</div>
            </div>
          </div>
        </div>

        <div className="tech-steps">
          <TechStep
            labels={['Get Tech Pack Description', 'Generating...', '✓ Description Generated']}
            tip={DESCRIBE_TIP}
            onRun={() => void describe()}
            waiting={false}
            running={generating}
            done={step1Done}
            progress={progress1}
            progressLabel="Description progress"
            typical="~20 seconds"
          />
          <TechStep
            labels={['Process Tech Pack', 'Processing...', '✓ Tech Pack Processed']}
            tip={PROCESS_TIP}
            onRun={() => void processPack()}
            waiting={!step1Done}
            running={processing}
            done={step2Done}
            progress={progress2}
            progressLabel="Processing progress"
            typical="~40 seconds"
          />
        </div>
        {step1Done || step2Done ? (
          <div className="studio-actions">
            <button type="button" className="secondary-button" onClick={startNew}>
              Start New Tech Pack
            </button>
            {step2Done ? (
              <button type="button" className="primary-button" onClick={workFromThis}>
                Work from this Tech Pack
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
      <JobLog tool="tech-pack" />
    </ToolPage>
  );
}
