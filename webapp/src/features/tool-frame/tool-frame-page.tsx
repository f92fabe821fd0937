import { useEffect } from 'react';

import { ToolStatusBar } from '@/components/tool/status-bar';
import { TOOL_ROUTES, useToolsBySlug } from '@/lib/tools';

export const UPCOMING_WORKSPACE = "This tool's workspace opens in an upcoming release.";

/**
 * The frame every tool page shares: header, status bar and, until the tool's own form lands,
 * a note that its workspace is coming. `slug` comes from the route table (TOOL_ROUTES).
 */
export function ToolFramePage({ slug }: { slug: string }) {
  const tools = useToolsBySlug();
  const tool = tools.get(slug);
  const name = tool?.name ?? TOOL_ROUTES.find((route) => route.slug === slug)?.name ?? slug;

  useEffect(() => {
    document.title = `${name} · Atelier`;
    return () => {
      document.title = 'Atelier';
    };
  }, [name]);

  return (
    <article className="tool-page" aria-labelledby="tool-title">
      <header className="tool-header">
        <div>
          <p className="eyebrow">Atelier tool</p>
          <h1 id="tool-title">
            {name}
            {tool ? <span className="badge badge-large">{tool.badge}</span> : null}
          </h1>
          {tool?.eta_text ? <p className="muted small">Typical run: {tool.eta_text}</p> : null}
        </div>
        <ToolStatusBar tool={slug} />
      </header>
      {tool?.locked ? (
        <p className="notice" role="alert">
          This tool is not enabled for your organisation.
        </p>
      ) : (
        <p className="notice">{UPCOMING_WORKSPACE}</p>
      )}
    </article>
  );
}
