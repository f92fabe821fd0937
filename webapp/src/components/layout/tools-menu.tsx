import { type KeyboardEvent, useCallback, useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';

import { LockIcon } from '@/components/ui/lock-icon';
import { useDismiss } from '@/hooks/use-dismiss';
import { useMenuKeyboard } from '@/hooks/use-menu-keyboard';
import { useDenialSound } from '@/hooks/use-sound-enabled';
import { useMe } from '@/lib/auth';
import { NAV_TOOL_GROUPS, type NavEntry, canOpen, useToolsBySlug } from '@/lib/tools';
import type { Tool } from '@/types/api';

function ToolItem({ entry, tool, onNavigate }: { entry: NavEntry; tool: Tool | undefined; onNavigate: () => void }) {
  const deny = useDenialSound();
  // The catalogue decides; the spec's defaults stand in until it answers.
  const state = tool ?? entry.fallback;
  const badge = tool?.badge ?? entry.fallback.badge;
  if (canOpen(state)) {
    return (
      <Link className="menu-item" role="menuitem" to={state.route} onClick={onNavigate}>
        {entry.label}
        <span className="badge badge-version">{badge}</span>
      </Link>
    );
  }
  return (
    <button type="button" className="menu-item is-disabled" role="menuitem" aria-disabled="true" onClick={deny}>
      {state.locked && badge !== 'Private' ? <LockIcon /> : null}
      {entry.label}
      {badge ? <span className="badge">{badge}</span> : null}
    </button>
  );
}

export function ToolsMenu() {
  const [open, setOpen] = useState(false);
  const containerRef = useRef<HTMLDivElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const me = useMe();
  // The catalogue is per organisation: ask for it once someone is signed in.
  const tools = useToolsBySlug({ enabled: Boolean(me.data) });
  const close = useCallback(() => setOpen(false), []);
  useDismiss(containerRef, open, close);
  const onMenuKeys = useMenuKeyboard(menuRef, open);

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
          {NAV_TOOL_GROUPS.map((group, index) => (
            <div className="menu-group" key={group.title ?? `group-${index}`} role="group" aria-label={group.title ?? 'Unavailable'}>
              {group.title ? (
                <div className="menu-group-title" aria-hidden="true">
                  {group.title}
                </div>
              ) : null}
              {group.entries.map((entry) => (
                <ToolItem key={entry.slug} entry={entry} tool={tools.get(entry.slug)} onNavigate={close} />
              ))}
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
