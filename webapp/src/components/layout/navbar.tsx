import { Link, NavLink } from 'react-router-dom';

import { SoundToggle } from '@/components/layout/sound-toggle';
import { ToolsMenu } from '@/components/layout/tools-menu';
import { UserMenu } from '@/components/layout/user-menu';
import { useMe } from '@/lib/auth';

export function Navbar() {
  const me = useMe();
  return (
    <nav className="navbar" aria-label="Main">
      <Link to="/" className="brand">
        <span className="brand-logo" aria-hidden="true">
          A
        </span>
        <span className="brand-wordmark">Atelier</span>
      </Link>
      <div className="nav-links">
        <NavLink to="/" end className="nav-link">
          HOME
        </NavLink>
        <ToolsMenu />
      </div>
      <div className="nav-actions">
        <SoundToggle />
        {me.data ? <UserMenu me={me.data} /> : null}
      </div>
    </nav>
  );
}
