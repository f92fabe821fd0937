import { ComingSoonPage } from '@/features/coming-soon/coming-soon-page';

// Ours, not the spec's: the specification does not name Stylist Web's cards (part 2, §2).
const FEATURES = [
  { title: 'Style Profiles', description: 'Capture a customer’s taste in a few steps.' },
  { title: 'Outfit Curation', description: 'Assemble looks from your own catalog.' },
  { title: 'Shareable Looks', description: 'Send curated looks to customers on the web.' },
];

export function StylistWebPage() {
  return <ComingSoonPage toolName="Stylist Web" tagline="Your AI stylist, on the web." features={FEATURES} />;
}
