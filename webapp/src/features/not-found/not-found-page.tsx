import { useEffect } from 'react';
import { Link, useLocation } from 'react-router-dom';

import { useDocumentTitle } from '@/hooks/use-document-title';

export function NotFoundPage() {
  const location = useLocation();
  useDocumentTitle('Page not found');

  useEffect(() => {
    console.error('404 Error: User attempted to access non-existent route:', location.pathname);
  }, [location.pathname]);

  return (
    <section className="not-found-page">
      <h1>404</h1>
      <p>Oops! Page not found</p>
      <Link to="/" className="primary-button">
        Return to Home
      </Link>
    </section>
  );
}
