import { ComingSoonPage } from '@/features/coming-soon/coming-soon-page';

const FEATURES = [
  { title: 'Pattern Input', description: 'Start from your existing garment patterns.' },
  { title: 'Fabric Simulation', description: 'See how the fabric drapes before cutting.' },
  { title: 'Pre-Sampling Visualization', description: 'Review the garment before the first sample.' },
];

export function RePatternPage() {
  return <ComingSoonPage toolName="Re-Pattern" tagline="From pattern to preview, without a sample." features={FEATURES} />;
}
