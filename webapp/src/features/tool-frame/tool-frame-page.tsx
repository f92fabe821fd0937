import { ToolPage } from '@/components/tool/tool-page';

export const UPCOMING_WORKSPACE = "This tool's workspace opens in an upcoming release.";

/**
 * The frame of the tool routes whose own page has not landed yet (Editorial, Tonelab, …):
 * header, status bar and a note that the workspace is coming.
 */
export function ToolFramePage({ slug }: { slug: string }) {
  return (
    <ToolPage slug={slug}>
      <p className="notice">{UPCOMING_WORKSPACE}</p>
    </ToolPage>
  );
}
