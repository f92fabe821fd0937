import { libraryFit, useLibraryModels } from '@/lib/library-models';

export const EMPTY_LIBRARY = 'Your model library is empty: ask Atelier to add your models.';
export const SKIPPED_LABEL = 'Skipped';

/**
 * Tools that dress library models say so when the organisation has none yet (with `purpose`),
 * and, with `tool`, list before the run the models that tool will skip or dress differently,
 * and why (from GET /api/models/ `fits`).
 */
export function ModelLibraryNotice({ purpose, tool }: { purpose?: string; tool?: string }) {
  const models = useLibraryModels();
  if (!models.data) return null;
  if (models.data.length === 0) {
    return purpose ? (
      <p className="notice notice-warning" role="note">
        {EMPTY_LIBRARY} {purpose}
      </p>
    ) : null;
  }
  if (!tool) return null;
  const { skipped, differently } = libraryFit(models.data, tool);
  if (skipped.length === 0 && differently.length === 0) return null;
  return (
    <section className="notice notice-warning library-fit" role="note" aria-label="Your models for this tool">
      <ul>
        {skipped.map(({ model, reason }) => (
          <li key={model.id}>
            <strong>{model.name}</strong> · {SKIPPED_LABEL}: {reason}
          </li>
        ))}
        {differently.map(({ model, note }) => (
          <li key={model.id}>
            <strong>{model.name}</strong> · {note}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Why Run is disabled, beside the button it disables (nothing when Run can work). */
export function RunBlockedReason({ id, reason }: { id: string; reason: string | null }) {
  if (!reason) return null;
  return (
    <p id={id} className="field-hint field-error" role="status">
      {reason}
    </p>
  );
}
