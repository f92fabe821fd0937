import { DirectToolPage } from '@/components/tool/direct-tool-page';
import { RESTYLE_TICKER } from '@/lib/direct-jobs';
import { statusText } from '@/lib/http-status';

const toasts = {
  failed: (_reason: string, error: unknown) => ({ title: '❌ Restyle Failed', description: `Restyle failed: ${error ? statusText(error) : _reason}` }),
  complete: { title: '✅ Restyle Complete!' },
};

export function RestylePage() {
  return <DirectToolPage slug="restyle" ticker={RESTYLE_TICKER} toasts={toasts} />;
}
