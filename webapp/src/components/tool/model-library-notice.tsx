import { useLibraryModels } from '@/lib/library-models';

export const EMPTY_LIBRARY = 'Your model library is empty: ask Atelier to add your models.';

/** Tools that dress library models say so when the organisation has none yet. */
export function ModelLibraryNotice({ purpose }: { purpose: string }) {
  const models = useLibraryModels();
  if (!models.data || models.data.length > 0) return null;
  return (
    <p className="notice notice-warning" role="note">
      {EMPTY_LIBRARY} {purpose}
    </p>
  );
}
