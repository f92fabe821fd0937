import { DirectToolPage } from '@/components/tool/direct-tool-page';

export function VirtualTryOnPage() {
  return <DirectToolPage slug="virtual-try-on" />;
}
