import { useId, useState } from 'react';
import { Link } from 'react-router-dom';

import { LockIcon } from '@/components/ui/lock-icon';
import { CATEGORIES, RELEASE_NOTES } from '@/features/home/home-copy';
import { useDenialSound } from '@/hooks/use-sound-enabled';
import { canOpen, useTools } from '@/lib/tools';
import type { Tool, ToolCategory } from '@/types/api';

function ToolTile({ tool }: { tool: Tool }) {
  const deny = useDenialSound();
  // A tool staff enabled for this organisation comes back unlocked: no 'Locked' badge then.
  const badge = !tool.locked && tool.badge === 'Locked' ? null : tool.badge;
  const content = (
    <>
      <span className="tile-name">{tool.name}</span>
      {badge ? <span className={`badge tile-badge badge-${badge.toLowerCase().replace('.', '')}`}>{badge}</span> : null}
    </>
  );
  if (canOpen(tool)) {
    return (
      <Link className="tool-tile" to={tool.route}>
        {content}
      </Link>
    );
  }
  // Locked, private or not yet on a page: greyed, and a click only plays the denial tone.
  return (
    <button type="button" className="tool-tile is-locked" aria-disabled="true" onClick={deny}>
      {tool.locked ? <LockIcon /> : null}
      {content}
    </button>
  );
}

function ReleaseNotes() {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  return (
    <div
      className="release-notes"
      onMouseEnter={() => setOpen(true)}
      onMouseLeave={() => setOpen(false)}
      onFocus={() => setOpen(true)}
      onBlur={() => setOpen(false)}
    >
      <button
        type="button"
        className="release-notes-trigger"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen(true)}
        onKeyDown={(event) => event.key === 'Escape' && setOpen(false)}
      >
        Release Notes
      </button>
      <dl id={panelId} className="release-notes-panel" hidden={!open}>
        {RELEASE_NOTES.map((note) => (
          <div key={note.version} className="release-note">
            <dt>{note.version}</dt>
            <dd>{note.model}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

export function HomePage() {
  const tools = useTools();
  const [active, setActive] = useState<ToolCategory | null>(null);
  const panelId = useId();
  const activeCategory = CATEGORIES.find((category) => category.id === active);
  const activeTools = (tools.data ?? []).filter((tool) => tool.category === active);

  return (
    <section className="home-page">
      <header className="home-hero">
        <p className="eyebrow">Partner platform</p>
        <h1>The fashion industry&apos;s AI atelier</h1>
        <ReleaseNotes />
      </header>
      <ul className="category-list">
        {CATEGORIES.map((category) => (
          <li
            key={category.id}
            className={`category-card${active === category.id ? ' is-active' : ''}`}
            onMouseEnter={() => setActive(category.id)}
            onFocus={() => setActive(category.id)}
          >
            <h2>
              <button
                type="button"
                className="category-trigger"
                aria-expanded={active === category.id}
                aria-controls={panelId}
                onClick={() => setActive(category.id)}
              >
                {category.title}
                {category.note ? <span className="badge category-note">{category.note}</span> : null}
              </button>
            </h2>
            <p className="muted small">{category.description}</p>
          </li>
        ))}
      </ul>
      <section
        id={panelId}
        className="tool-tiles-panel"
        aria-label={activeCategory ? `${activeCategory.title} tools` : 'Tools'}
        aria-live="polite"
      >
        {tools.isError ? (
          <p role="alert" className="field-error">
            We could not load the tools. Please reload the page.
          </p>
        ) : !activeCategory ? (
          <p className="muted">Hover a category to see its tools.</p>
        ) : tools.isPending ? (
          <p className="muted">Loading tools…</p>
        ) : (
          <ul className="tool-tiles">
            {activeTools.map((tool) => (
              <li key={tool.slug}>
                <ToolTile tool={tool} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </section>
  );
}
