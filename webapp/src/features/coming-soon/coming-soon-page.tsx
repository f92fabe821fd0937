import { type FormEvent, useId } from 'react';

import { useDocumentTitle } from '@/hooks/use-document-title';

import PAGES from '@/features/coming-soon/coming-soon.json';

type ComingSoonName = keyof typeof PAGES;

export type ComingSoonFeature = { title: string; description: string };

type ComingSoonPageProps = {
  toolName: string;
  tagline: string;
  features: ComingSoonFeature[];
};

/** The coming-soon pages by route name (coming-soon.json). Reface's and Stylist Web's cards are
 * ours, not the spec's: the specification does not name them (part 2, §2). */
export const COMING_SOON: Record<ComingSoonName, ComingSoonPageProps> = PAGES;

/** The route's page: one of COMING_SOON. */
export function ComingSoonRoute({ page }: { page: ComingSoonName }) {
  return <ComingSoonPage {...COMING_SOON[page]} />;
}

export function ComingSoonPage({ toolName, tagline, features }: ComingSoonPageProps) {
  const emailId = useId();
  useDocumentTitle(`${toolName} (coming soon)`);
  // The notify form is a placeholder: nothing is sent anywhere.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => event.preventDefault();

  return (
    <section className="coming-soon-page">
      <span className="badge badge-large">Private Beta</span>
      <h1>{toolName}</h1>
      <p className="coming-soon-title">Coming Soon</p>
      <p className="muted">{tagline}</p>
      <ul className="feature-cards">
        {features.map((feature) => (
          <li key={feature.title} className="feature-card">
            <h2>{feature.title}</h2>
            <p className="muted">{feature.description}</p>
          </li>
        ))}
      </ul>
      <form className="notify-form" onSubmit={onSubmit} aria-label="Notify me">
        <label htmlFor={emailId} className="visually-hidden">
          E-mail address
        </label>
        <input id={emailId} type="email" name="email" placeholder="you@brand.com" required />
        <button type="submit" className="primary-button">
          Notify Me
        </button>
      </form>
    </section>
  );
}
