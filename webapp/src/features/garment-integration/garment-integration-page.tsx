import { DirectToolPage } from '@/components/tool/direct-tool-page';

export const INTEGRATION_MISSING = 'Provide both Editorial Image URL and Product Image URL.';

export function GarmentIntegrationPage() {
  return (
    <DirectToolPage
      slug="garment-integration"
      endpoint="/api/restyle-editorial/process"
      labels={['Editorial Image URL', 'Product Image URL']}
      toBody={(editorial, product) => ({ garment_url: product, outfit_url: editorial })}
      missingMessage={INTEGRATION_MISSING}
      readyLine="Editorial ready."
      exceptionLine="Inpaint threw an exception."
      runLabel="Run"
      newLabel="New Integration"
      downloadLabel="Download Image"
      resultAlt="Integrated editorial"
      overlay={{ title: 'Integrating Your Garment', message: 'This usually takes about 20 seconds.' }}
      prep={<p>Prep: the editorial image to work on and a product image of the garment to integrate. ETA 1–2 minutes.</p>}
    />
  );
}
