import { DirectToolPage } from '@/components/tool/direct-tool-page';

export const TRY_ON_MISSING = 'Provide both Desired Garment URL and Base Image URL.';

export function VirtualTryOnPage() {
  return (
    <DirectToolPage
      slug="virtual-try-on"
      endpoint="/api/try-on"
      labels={['Base Image URL', 'Desired Garment Image URL']}
      toBody={(model, garment) => ({ garmentUrl: garment, modelUrl: model })}
      missingMessage={TRY_ON_MISSING}
      readyLine="Preview ready."
      runLabel="Run"
      newLabel="New Virtual Try-On"
      downloadLabel="Download Image"
      resultAlt="Virtual try-on result"
      prep={<p>Prep: a base image of the model and an image of the garment to try on. About 2 minutes.</p>}
    />
  );
}
