import { Navigate, useLocation, useSearchParams } from 'react-router-dom';

import { Spinner } from '@/components/ui/spinner';
import { type LoginLocationState, buildLoginUrl, useMe } from '@/lib/auth';
import { assignLocation } from '@/utils/browser-location';
import { safeInternalPath } from '@/utils/safe-path';

function useRequestedPath(): string {
  const location = useLocation();
  const [searchParams] = useSearchParams();
  const from = (location.state as LoginLocationState | null)?.from;
  if (from) return safeInternalPath(`${from.pathname}${from.search ?? ''}${from.hash ?? ''}`);
  return safeInternalPath(searchParams.get('next'));
}

export function LoginPage() {
  const me = useMe();
  const requestedPath = useRequestedPath();

  if (me.isPending) return <Spinner />;
  if (me.data) return <Navigate to={requestedPath} replace />;

  return (
    <section className="login-page">
      <div className="login-card">
        <p className="eyebrow">The fashion industry&apos;s AI atelier</p>
        <h1>Partner Access</h1>
        <p>Access is currently exclusive to partners.</p>
        <button type="button" className="primary-button" onClick={() => assignLocation(buildLoginUrl(requestedPath))}>
          ACCESS PLATFORM
        </button>
        <p className="muted small">contact your administrator if you need assistance</p>
      </div>
    </section>
  );
}
