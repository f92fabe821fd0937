import { ComingSoonPage } from '@/features/coming-soon/coming-soon-page';

// The specification does not name Stylist Web's cards; these titles are placeholders.
const FEATURES = [
  { title: 'Style Profiles', description: 'Capture a customer’s taste in a few steps.' },
  { title: 'Outfit Curation', description: 'Assemble looks from your own catalog.' },
  { title: 'Shareable Looks', description: 'Send curated looks to customers on the web.' },
];

export function StylistWebPage() {
  return <ComingSoonPage toolName="Stylist Web" tagline="Your AI stylist, on the web." features={FEATURES} />;
}
