import { DirectToolPage } from '@/components/tool/direct-tool-page';

export function GarmentIntegrationPage() {
  return <DirectToolPage slug="garment-integration" />;
}
