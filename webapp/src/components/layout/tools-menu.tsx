import { type KeyboardEvent, useCallback, useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';

import { LockIcon } from '@/components/ui/lock-icon';
import { useDismiss } from '@/hooks/use-dismiss';
import { useMenuKeyboard } from '@/hooks/use-menu-keyboard';
import { useDenialSound } from '@/hooks/use-sound-enabled';
import { useMe } from '@/lib/auth';
import { canOpen, useTools } from '@/lib/tools';
import type { Tool } from '@/types/api';

function ToolItem({ tool, onNavigate }: { tool: Tool; onNavigate: () => void }) {
  const deny = useDenialSound();
  if (canOpen(tool)) {
    return (
      <Link className="menu-item" role="menuitem" to={tool.route} onClick={onNavigate}>
        {tool.nav_label}
        <span className="badge badge-version">{tool.badge}</span>
      </Link>
    );
  }
  return (
    <button type="button" className="menu-item is-disabled" role="menuitem" aria-disabled="true" onClick={deny}>
      {tool.locked && tool.badge !== 'Private' ? <LockIcon /> : null}
      {tool.nav_label}
      {tool.badge ? <span className="badge">{tool.badge}</span> : null}
    </button>
  );
}

type NavGroup = { title: string; tools: Tool[] };

/** The catalogue's navigation groups, each in catalogue order, in the order they first appear. */
export function navGroups(tools: Tool[]): NavGroup[] {
  const groups = new Map<string, Tool[]>();
  for (const tool of tools) {
    if (tool.nav_group === null) continue;
    groups.set(tool.nav_group, [...(groups.get(tool.nav_group) ?? []), tool]);
  }
  return [...groups].map(([title, members]) => ({ title, tools: members }));
}

export function ToolsMenu() {
  const [open, setOpen] = useState(false);
  const containerRef = useRef<HTMLDivElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const me = useMe();
  // The catalogue is per organisation: ask for it once someone is signed in.
  const tools = useTools({ enabled: Boolean(me.data) });
  const close = useCallback(() => setOpen(false), []);
  useDismiss(containerRef, open, close);
  // focus goes to the first entry once the menu has entries (the catalogue may still be on its way)
  const onMenuKeys = useMenuKeyboard(menuRef, open && Boolean(tools.data));

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape' && open) {
      close();
      triggerRef.current?.focus();
      return;
    }
    if (open) onMenuKeys(event);
  };
  const onTriggerKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === 'ArrowDown' && !open) {
      event.preventDefault();
      setOpen(true);
    }
  };

  return (
    <div className="dropdown" ref={containerRef} onKeyDown={onKeyDown}>
      <button
        ref={triggerRef}
        type="button"
        className="nav-link nav-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((value) => !value)}
        onKeyDown={onTriggerKeyDown}
      >
        TOOLS <span aria-hidden="true">▾</span>
      </button>
      {open ? (
        <div className="dropdown-panel tools-panel" id={menuId} role="menu" aria-label="Tools" ref={menuRef}>
          {tools.data ? (
            navGroups(tools.data).map((group, index) => (
              <div className="menu-group" key={group.title || `group-${index}`} role="group" aria-label={group.title || 'Unavailable'}>
                {group.title ? (
                  <div className="menu-group-title" aria-hidden="true">
                    {group.title}
                  </div>
                ) : null}
                {group.tools.map((tool) => (
                  <ToolItem key={tool.slug} tool={tool} onNavigate={close} />
                ))}
              </div>
            ))
          ) : (
            <p className="menu-group muted small" role="status">
              {tools.isError ? 'We could not load the tools.' : 'Loading tools…'}
            </p>
          )}
        </div>
      ) : null}
    </div>
  );
}
