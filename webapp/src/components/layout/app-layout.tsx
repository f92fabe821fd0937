import { Suspense } from 'react';
import { Outlet } from 'react-router-dom';

import { Navbar } from '@/components/layout/navbar';
import { Ticker } from '@/components/layout/ticker';
import { Spinner } from '@/components/ui/spinner';

export function AppLayout() {
  return (
    <div className="app-shell">
      <Ticker />
      {/* Sticky: the ticker scrolls away, the navigation stays. */}
      <header className="app-header">
        <Navbar />
      </header>
      <main className="app-main">
        <Suspense fallback={<Spinner />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
