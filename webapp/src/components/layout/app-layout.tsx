import { Suspense } from 'react';
import { Outlet } from 'react-router-dom';

import { Navbar } from '@/components/layout/navbar';
import { Ticker } from '@/components/layout/ticker';
import { Spinner } from '@/components/ui/spinner';
import { ToastProvider } from '@/components/ui/toast';

export function AppLayout() {
  return (
    <ToastProvider>
      <div className="app-shell">
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <Ticker />
        {/* Sticky: the ticker scrolls away, the navigation stays. */}
        <header className="app-header">
          <Navbar />
        </header>
        <main className="app-main" id="main" tabIndex={-1}>
          <Suspense fallback={<Spinner />}>
            <Outlet />
          </Suspense>
        </main>
      </div>
    </ToastProvider>
  );
}
