import { type FormEvent, useId } from 'react';

import { useDocumentTitle } from '@/hooks/use-document-title';

export type ComingSoonFeature = { title: string; description: string };

type ComingSoonPageProps = {
  toolName: string;
  tagline: string;
  features: ComingSoonFeature[];
};

/** The coming-soon pages by route name. Reface's and Stylist Web's cards are ours, not the
 * spec's: the specification does not name them (part 2, §2). */
export const COMING_SOON = {
  're-pattern': {
    toolName: 'Re-Pattern',
    tagline: 'From pattern to preview, without a sample.',
    features: [
      { title: 'Pattern Input', description: 'Start from your existing garment patterns.' },
      { title: 'Fabric Simulation', description: 'See how the fabric drapes before cutting.' },
      { title: 'Pre-Sampling Visualization', description: 'Review the garment before the first sample.' },
    ],
  },
  reface: {
    toolName: 'Reface',
    tagline: 'New faces for existing imagery.',
    features: [
      { title: 'Face Consistency', description: 'Keep one model identity across a whole shoot.' },
      { title: 'Expression Control', description: 'Adjust expression and gaze without a reshoot.' },
      { title: 'Diverse Casting', description: 'Present the same look on a range of models.' },
    ],
  },
  'stylist-web': {
    toolName: 'Stylist Web',
    tagline: 'Your AI stylist, on the web.',
    features: [
      { title: 'Style Profiles', description: 'Capture a customer’s taste in a few steps.' },
      { title: 'Outfit Curation', description: 'Assemble looks from your own catalog.' },
      { title: 'Shareable Looks', description: 'Send curated looks to customers on the web.' },
    ],
  },
} satisfies Record<string, ComingSoonPageProps>;

/** The route's page: one of COMING_SOON. */
export function ComingSoonRoute({ page }: { page: keyof typeof COMING_SOON }) {
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
