import { useCallback, useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';

import { useDenialSound } from '@/hooks/use-sound-enabled';
import { useDismiss } from '@/hooks/use-dismiss';
import { NAV_TOOL_GROUPS, type ToolEntry } from '@/lib/tools';

function ToolItem({ tool, onNavigate }: { tool: ToolEntry; onNavigate: () => void }) {
  const deny = useDenialSound();
  if (tool.path) {
    return (
      <Link className="menu-item" role="menuitem" to={tool.path} onClick={onNavigate}>
        {tool.label}
      </Link>
    );
  }
  return (
    <button type="button" className="menu-item is-disabled" role="menuitem" aria-disabled="true" onClick={deny}>
      {tool.badge === 'LOCKED' || tool.badge === 'PLAYGROUND' ? (
        <span className="lock-icon" aria-hidden="true">
          🔒
        </span>
      ) : null}
      {tool.label}
      {tool.badge ? <span className="badge">{tool.badge}</span> : null}
    </button>
  );
}

export function ToolsMenu() {
  const [open, setOpen] = useState(false);
  const containerRef = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const close = useCallback(() => setOpen(false), []);
  useDismiss(containerRef, open, close);

  return (
    <div className="dropdown" ref={containerRef}>
      <button
        type="button"
        className="nav-link nav-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((value) => !value)}
      >
        TOOLS <span aria-hidden="true">▾</span>
      </button>
      {open ? (
        <div className="dropdown-panel tools-panel" id={menuId} role="menu" aria-label="Tools">
          {NAV_TOOL_GROUPS.map((group, index) => (
            <div className="menu-group" key={group.title ?? `group-${index}`} role="group" aria-label={group.title ?? 'Unavailable'}>
              {group.title ? <div className="menu-group-title">{group.title}</div> : null}
              {group.tools.map((tool) => (
                <ToolItem key={tool.label} tool={tool} onNavigate={close} />
              ))}
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
