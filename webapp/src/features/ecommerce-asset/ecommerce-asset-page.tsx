import { DirectToolPage } from '@/components/tool/direct-tool-page';

export const ASSET_MISSING = 'Provide both Accessory URL and Base Model Image URL.';

export function EcommerceAssetPage() {
  return (
    <DirectToolPage
      slug="ecommerce-asset"
      endpoint="/api/catalog-asset/process"
      labels={['Base Model Image URL', 'Accessory Image URL']}
      toBody={(model, accessory) => ({ garment_url: accessory, outfit_url: model })}
      missingMessage={ASSET_MISSING}
      readyLine="Asset ready."
      runLabel="Run"
      newLabel="New Ecommerce Asset"
      downloadLabel="Download Image"
      resultAlt="Ecommerce asset result"
      prep={<p>Prep: a base image of the model and a packshot of the accessory. About 1 minute.</p>}
    />
  );
}
