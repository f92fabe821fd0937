import { useCallback, useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';

import { useDismiss } from '@/hooks/use-dismiss';
import { useLogout } from '@/lib/auth';
import { assignLocation } from '@/utils/browser-location';
import type { Me } from '@/types/api';

export function UserMenu({ me }: { me: Me }) {
  const [open, setOpen] = useState(false);
  const containerRef = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const navigate = useNavigate();
  const close = useCallback(() => setOpen(false), []);
  useDismiss(containerRef, open, close);
  const logout = useLogout({
    onSuccess: (redirect) => {
      // Our own page: stay in the app. The provider's logout page: leave it.
      if (redirect.startsWith('/')) navigate(redirect, { replace: true });
      else assignLocation(redirect);
    },
  });

  return (
    <div className="dropdown user-menu" ref={containerRef}>
      <button
        type="button"
        className="nav-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((value) => !value)}
      >
        {me.email}
      </button>
      {open ? (
        <div className="dropdown-panel dropdown-panel-right" id={menuId} role="menu" aria-label="Account">
          <div className="menu-caption">
            <div>{me.email}</div>
            {me.organization ? <div className="muted">{me.organization.name}</div> : null}
          </div>
          <Link to="/jobs" className="menu-item" role="menuitem" onClick={close}>
            Job history
          </Link>
          <Link to="/settings" className="menu-item" role="menuitem" onClick={close}>
            Settings
          </Link>
          <button
            type="button"
            className="menu-item"
            role="menuitem"
            disabled={logout.isPending}
            onClick={() => logout.mutate()}
          >
            Sign Out
          </button>
          {logout.isError ? (
            <p className="menu-error" role="alert">
              Sign out failed. Please try again.
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
