import { type ChangeEvent, type ReactNode, useCallback, useEffect, useRef, useState } from 'react';

import { JobEngineLabel, answerJobId } from '@/components/tool/engine-label';
import { JobLog } from '@/components/tool/job-log';
import { ToolPage } from '@/components/tool/tool-page';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { downloadFile, readFileDataUrl, stripDataPrefix, toImageSrc } from '@/lib/editorial';
import { usePost } from '@/lib/submit';
import '@/components/tool/studio.css';

export const MAX_ATTACHMENTS = 2;
export const GENERATION_FAILED = 'Failed to generate images. Please try again.';
export const NETWORK_ERROR = 'Network error. Please try again.';
const MIN_HEIGHT = 56;
const MAX_HEIGHT = 274;

export const TEMPLATES: { name: string; text: string }[] = [
  {
    name: 'Image to Flat',
    // Worded as Open Lab's instructions read it: a technical flat, front and back, of that garment type.
    text: 'Turn the garment in the attached photo into a technical flat drawing, front and back.\nGarment: [REQUIRED: garment type, e.g. denim jacket]',
  },
  {
    name: 'Sketch to Photo',
    text:
      'Turn the attached sketch into a photorealistic garment photo.\n' +
      'Fabric: [REQUIRED: fabric, e.g. washed linen]\n' +
      'Color: [REQUIRED: main colour]\n' +
      'Setting: [Optional: studio, on model, flat lay]',
  },
];

type Message = { id: number; type: 'user' | 'assistant'; text: string; images: string[]; resultImages: string[]; timestamp: Date; jobId?: string | null };

const PLACEHOLDER = /(\[(?:REQUIRED|Optional):[^\]]*\])/g;

/** The message text with its [REQUIRED: …] and [Optional: …] placeholders marked. */
export function highlightPlaceholders(text: string): ReactNode[] {
  return text.split(PLACEHOLDER).map((part, index) => {
    if (index % 2 === 0) return part;
    return (
      <mark key={index} className={part.startsWith('[REQUIRED') ? 'placeholder-required' : 'placeholder-optional'}>
        {part}
      </mark>
    );
  });
}

export function OpenLabPage() {
  const [messages, setMessages] = useState<Message[]>([]);
  const [text, setText] = useState('');
  const [attachments, setAttachments] = useState<string[]>([]);
  const lab = usePost<{ result1?: string; result2?: string }, Record<string, string>>('/api/open-lab/');
  const waiting = lab.isPending;
  const [menuOpen, setMenuOpen] = useState(false);
  const nextId = useRef(1);
  const endRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  const scrollToEnd = useCallback(() => endRef.current?.scrollIntoView?.({ behavior: 'smooth', block: 'end' }), []);
  useEffect(() => {
    scrollToEnd();
  }, [messages, waiting, scrollToEnd]);

  useEffect(() => {
    const box = inputRef.current;
    if (!box) return;
    box.style.height = `${MIN_HEIGHT}px`;
    box.style.height = `${Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, box.scrollHeight))}px`;
  }, [text]);

  const add = (message: Omit<Message, 'id' | 'timestamp'>) => setMessages((list) => [...list, { ...message, id: nextId.current++, timestamp: new Date() }]);

  const onFiles = async (event: ChangeEvent<HTMLInputElement>) => {
    const room = MAX_ATTACHMENTS - attachments.length;
    // At most two: extra files are dropped.
    const files = Array.from(event.target.files ?? []).filter((file) => file.type.startsWith('image/')).slice(0, Math.max(0, room));
    event.target.value = '';
    if (!files.length) return;
    const urls = await Promise.all(files.map(readFileDataUrl));
    setAttachments((list) => [...list, ...urls].slice(0, MAX_ATTACHMENTS));
  };

  const send = async () => {
    const prompt = text.trim();
    if (waiting || (!prompt && !attachments.length)) return;
    const images = attachments;
    add({ type: 'user', text: prompt, images, resultImages: [] });
    setText('');
    setAttachments([]);
    try {
      const body: Record<string, string> = { prompt };
      if (images[0]) body.image = stripDataPrefix(images[0]);
      if (images[1]) body.image_2 = stripDataPrefix(images[1]);
      const answer = await lab.mutateAsync(body);
      if (!answer?.result1 || !answer?.result2) throw new Error(GENERATION_FAILED);
      add({ type: 'assistant', text: 'Here are your results.', images: [], resultImages: [toImageSrc(answer.result1), toImageSrc(answer.result2)], jobId: answerJobId(answer) });
    } catch (error) {
      let reply = GENERATION_FAILED;
      if (error instanceof TypeError) reply = NETWORK_ERROR;
      // An instruction outside Open Lab's set: the server says why.
      else if (error instanceof ApiError && error.status === 422 && error.message) reply = error.message;
      add({ type: 'assistant', text: reply, images: [], resultImages: [] });
    }
  };

  const workFrom = (src: string) => {
    setAttachments((list) => (list.length >= MAX_ATTACHMENTS ? list : [...list, src]));
    inputRef.current?.focus();
  };

  return (
    <ToolPage slug="open-lab" busy={waiting}>
      <div className="studio open-lab">
        <section className="chat-log" aria-label="Conversation" aria-live="polite">
          {!messages.length ? <p className="muted chat-empty">Describe what to make, attach up to 2 images, or start from a template.</p> : null}
          {messages.map((message) => (
            <article key={message.id} className={`chat-message chat-${message.type}`} aria-label={message.type === 'user' ? 'You' : 'Open Lab'}>
              {message.text ? <p className="chat-text">{message.text}</p> : null}
              {message.images.length ? (
                <div className="chat-images">
                  {message.images.map((src, index) => (
                    <img key={index} src={src} alt={`Attachment ${index + 1}`} onLoad={scrollToEnd} />
                  ))}
                </div>
              ) : null}
              {message.resultImages.length ? (
                <div className="chat-results">
                  {message.resultImages.map((src, index) => (
                    <figure key={index}>
                      {/* A picture gets its height only once loaded: scroll again so the reply ends in view. */}
                      <img src={src} alt={`Result ${index + 1}`} onLoad={scrollToEnd} />
                      <JobEngineLabel jobId={message.jobId} onShown={scrollToEnd} />
                      <div className="studio-actions">
                        <button type="button" className="secondary-button" onClick={() => downloadFile(src, `result-${index + 1}.png`)}>
                          Download
                        </button>
                        <button type="button" className="secondary-button" onClick={() => workFrom(src)} disabled={attachments.length >= MAX_ATTACHMENTS}>
                          Work from this
                        </button>
                      </div>
                    </figure>
                  ))}
                </div>
              ) : null}
              <time className="muted small">{message.timestamp.toLocaleTimeString()}</time>
            </article>
          ))}
          {waiting ? (
            <div className="chat-message chat-assistant chat-loading" role="status">
              <Spinner /> Generating…
            </div>
          ) : null}
          <div ref={endRef} />
        </section>

        <section className="chat-composer" aria-label="Message">
          {attachments.length ? (
            <ul className="chat-attachments" aria-label="Attachments">
              {attachments.map((src, index) => (
                <li key={index}>
                  <img src={src} alt={`Attachment ${index + 1}`} />
                  <button type="button" className="icon-button" aria-label={`Remove attachment ${index + 1}`} onClick={() => setAttachments((list) => list.filter((_, at) => at !== index))}>
                    ×
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
          <div className="composer-row">
            <div className="dropdown">
              <button type="button" className="secondary-button" aria-haspopup="menu" aria-expanded={menuOpen} onClick={() => setMenuOpen((open) => !open)}>
                Templates
              </button>
              {menuOpen ? (
                <ul className="dropdown-panel template-menu" role="menu" aria-label="Templates">
                  {TEMPLATES.map((template) => (
                    <li key={template.name} role="none">
                      <button
                        type="button"
                        role="menuitem"
                        className="menu-item"
                        onClick={() => {
                          setText(template.text);
                          setMenuOpen(false);
                          inputRef.current?.focus();
                        }}
                      >
                        {template.name}
                      </button>
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
            <button type="button" className="icon-button add-image" aria-label="Add image" onClick={() => fileRef.current?.click()} disabled={attachments.length >= MAX_ATTACHMENTS || waiting}>
              +
            </button>
            <input ref={fileRef} type="file" accept="image/*" multiple hidden data-testid="open-lab-files" onChange={(event) => void onFiles(event)} />
            <div className="highlight-box">
              <div className="highlight-layer" aria-hidden="true">
                {highlightPlaceholders(text)}
                {'\n'}
              </div>
              <textarea
                ref={inputRef}
                aria-label="Message"
                value={text}
                placeholder="Describe the image you want…"
                onChange={(event) => setText(event.target.value)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' && !event.shiftKey) {
                    event.preventDefault();
                    void send();
                  }
                }}
              />
            </div>
            <button type="button" className="primary-button" onClick={() => void send()} disabled={waiting || (!text.trim() && !attachments.length)}>
              Send
            </button>
          </div>
        </section>
      </div>
      <JobLog tool="open-lab" />
    </ToolPage>
  );
}
