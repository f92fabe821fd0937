import { Navigate, Outlet, useLocation } from 'react-router-dom';

import { Spinner } from '@/components/ui/spinner';
import { type LoginLocationState, useMe } from '@/lib/auth';

/** First guard layer: anonymous visitors go to /login, remembering where they were heading. */
export function RequireAuth() {
  const location = useLocation();
  const me = useMe();

  if (me.isPending) return <Spinner />;
  if (me.isError) {
    return (
      <p className="page-error" role="alert">
        We could not check your session. Please reload the page.
      </p>
    );
  }
  if (!me.data) {
    const next = `${location.pathname}${location.search}${location.hash}`;
    const state: LoginLocationState = { from: location };
    return <Navigate to={`/login?next=${encodeURIComponent(next)}`} state={state} replace />;
  }
  return <Outlet />;
}
