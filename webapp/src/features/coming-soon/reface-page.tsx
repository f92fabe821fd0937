import { ComingSoonPage } from '@/features/coming-soon/coming-soon-page';

// Ours, not the spec's: the specification does not name Reface's cards (part 2, §2).
const FEATURES = [
  { title: 'Face Consistency', description: 'Keep one model identity across a whole shoot.' },
  { title: 'Expression Control', description: 'Adjust expression and gaze without a reshoot.' },
  { title: 'Diverse Casting', description: 'Present the same look on a range of models.' },
];

export function RefacePage() {
  return <ComingSoonPage toolName="Reface" tagline="New faces for existing imagery." features={FEATURES} />;
}
