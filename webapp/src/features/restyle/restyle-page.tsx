import { DirectToolPage } from '@/components/tool/direct-tool-page';
import { RESTYLE_TICKER } from '@/lib/direct-jobs';
import { statusText } from '@/lib/http-status';

const toasts = {
  failed: (_reason: string, error: unknown) => ({ title: '❌ Restyle Failed', description: `Restyle failed: ${error ? statusText(error) : _reason}` }),
  complete: { title: '✅ Restyle Complete!' },
};

export function RestylePage() {
  return (
    <DirectToolPage
      slug="restyle"
      endpoint="/api/restyle/garment-restyle"
      labels={['Full Body Outfit', 'Garment Shot']}
      toBody={(outfit, garment) => ({ garment_url: garment, outfit_url: outfit })}
      missingMessage={null}
      runLabel="Run Restyle"
      newLabel="New Restyle"
      downloadLabel="Download"
      ticker={RESTYLE_TICKER}
      toasts={toasts}
      resultAlt="Restyled outfit"
      prep={<p>Prep: a full-body outfit photo and a flat or packshot of the garment to put on it. About 18 seconds once started.</p>}
    />
  );
}
