import { DirectToolPage } from '@/components/tool/direct-tool-page';

export function EcommerceAssetPage() {
  return <DirectToolPage slug="ecommerce-asset" />;
}
