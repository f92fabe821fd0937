import { type ReactNode } from 'react';

import { ExamplesGallery } from '@/components/tool/examples-gallery';
import { ToolStatusBar } from '@/components/tool/status-bar';
import { useDocumentTitle } from '@/hooks/use-document-title';
import { useToolsBySlug } from '@/lib/tools';

export const NOT_ENABLED = 'This tool is not enabled for your organisation.';

type ToolPageProps = {
  slug: string;
  children: ReactNode;
  /** Shows Processing from the moment the page submits. */
  busy?: boolean;
  /** A page-specific status bar instead of the queue-fed one. */
  statusBar?: ReactNode;
  className?: string;
};

/**
 * Header (name, badge, typical run), status bar, the page and its Examples gallery, unless the
 * tool is locked.
 */
export function ToolPage({ slug, children, busy = false, statusBar, className = '' }: ToolPageProps) {
  const tools = useToolsBySlug();
  const tool = tools.get(slug);
  const name = tool?.name ?? slug;

  useDocumentTitle(name);

  return (
    <article className={`tool-page ${className}`} aria-labelledby="tool-title">
      <header className="tool-header">
        <div>
          <p className="eyebrow">Atelier tool</p>
          <h1 id="tool-title">
            {name}
            {tool ? <span className="badge badge-large">{tool.badge}</span> : null}
          </h1>
          {tool?.eta_text ? <p className="muted small">Typical run: {tool.eta_text}</p> : null}
        </div>
        {statusBar ?? <ToolStatusBar tool={slug} busy={busy} />}
      </header>
      {tool?.locked ? (
        <p className="notice" role="alert">
          {NOT_ENABLED}
        </p>
      ) : (
        <>
          {children}
          {tool?.examples.length ? <ExamplesGallery examples={tool.examples} /> : null}
        </>
      )}
    </article>
  );
}
