import { type FormEvent, useId, useState } from 'react';

import { Options } from '@/components/ui/options';
import type { ProviderAccount, ProviderAccountInput, ProviderKind, ProviderKindInfo } from '@/features/settings/providers-api';

type Props = {
  kinds: ProviderKindInfo[];
  /** The account being changed; absent when adding one. */
  account?: ProviderAccount;
  toolName: (slug: string) => string;
  pending: boolean;
  error: string | null;
  onSubmit: (input: ProviderAccountInput) => void;
  onCancel: () => void;
};

/**
 * Add or change a provider account. The key field starts empty: when changing an account it is
 * only sent to replace the stored key, which the page never sees.
 */
export function ProviderAccountForm({ kinds, account, toolName, pending, error, onSubmit, onCancel }: Props) {
  const id = useId();
  const [kind, setKind] = useState<ProviderKind>(account?.kind ?? kinds[0]?.kind ?? 'fashn');
  const [label, setLabel] = useState(account?.label ?? '');
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState(account?.base_url ?? '');
  const [tools, setTools] = useState<string[]>(account?.tools ?? []);
  const [models, setModels] = useState<Record<string, string>>(account?.models ?? {});
  const [fallback, setFallback] = useState(account?.fallback_local ?? false);

  const info = kinds.find((row) => row.kind === kind);
  const kindTools = info?.tools ?? [];
  const isVertex = kind === 'vertex';

  const changeKind = (next: ProviderKind) => {
    setKind(next);
    // what was chosen for one kind's tools means nothing for another's
    setTools([]);
    setModels({});
  };

  const toggleTool = (slug: string, on: boolean) =>
    setTools((current) => (on ? [...current, slug] : current.filter((tool) => tool !== slug)));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const chosenModels = Object.fromEntries(
      Object.entries(models)
        .map(([slug, model]) => [slug, model.trim()] as const)
        .filter(([slug, model]) => model && kindTools.includes(slug)),
    );
    onSubmit({
      kind,
      label: label.trim(),
      api_key: apiKey.trim(),
      base_url: baseUrl.trim(),
      models: chosenModels,
      fallback_local: fallback,
      tools: kindTools.filter((slug) => tools.includes(slug)),
    });
  };

  const title = account ? `Change ${account.label || info?.label || account.kind}` : 'Add a provider account';
  const keyLabel = isVertex ? 'Service account JSON key' : 'API key';

  return (
    <form className="provider-form" aria-label={title} onSubmit={submit}>
      <h3>{title}</h3>

      <div className="field">
        <label htmlFor={`${id}-kind`}>Provider</label>
        <select
          id={`${id}-kind`}
          value={kind}
          disabled={Boolean(account)}
          onChange={(event) => changeKind(event.target.value as ProviderKind)}
        >
          <Options items={kinds} value={(row) => row.kind} label={(row) => row.label} />
        </select>
      </div>

      <div className="field">
        <label htmlFor={`${id}-label`}>Label</label>
        <input id={`${id}-label`} value={label} maxLength={100} onChange={(event) => setLabel(event.target.value)} />
      </div>

      <div className="field">
        <label htmlFor={`${id}-key`}>{keyLabel}</label>
        {isVertex ? (
          <textarea
            id={`${id}-key`}
            value={apiKey}
            rows={4}
            required={!account}
            spellCheck={false}
            autoComplete="off"
            onChange={(event) => setApiKey(event.target.value)}
          />
        ) : (
          <input
            id={`${id}-key`}
            type="password"
            value={apiKey}
            required={!account}
            autoComplete="new-password"
            onChange={(event) => setApiKey(event.target.value)}
          />
        )}
        <p className="field-hint">
          {account
            ? `Stored key •••• ${account.key_last4}. Leave empty to keep it.`
            : 'Stored encrypted; it is never shown again, only its last 4 characters.'}
        </p>
      </div>

      <div className="field">
        <label htmlFor={`${id}-url`}>Base URL</label>
        <input
          id={`${id}-url`}
          type="url"
          value={baseUrl}
          placeholder={info?.default_base_url}
          onChange={(event) => setBaseUrl(event.target.value)}
        />
        <p className="field-hint">Empty for the provider&apos;s own API.</p>
      </div>

      <fieldset className="field">
        <legend>Tools</legend>
        <p className="field-hint">None ticked: every tool this provider runs.</p>
        {kindTools.map((slug) => (
          <div key={slug} className="provider-tool">
            <label>
              <input type="checkbox" checked={tools.includes(slug)} onChange={(event) => toggleTool(slug, event.target.checked)} />{' '}
              {toolName(slug)}
            </label>
            <input
              aria-label={`Model for ${toolName(slug)}`}
              value={models[slug] ?? ''}
              placeholder="provider's default model"
              maxLength={200}
              onChange={(event) => setModels((current) => ({ ...current, [slug]: event.target.value }))}
            />
          </div>
        ))}
      </fieldset>

      <div className="field">
        <label>
          <input type="checkbox" checked={fallback} onChange={(event) => setFallback(event.target.checked)} /> Run the local preview
          when the provider fails
        </label>
      </div>

      {error ? (
        <p role="alert" className="field-error">
          {error}
        </p>
      ) : null}

      <div className="provider-form-actions">
        <button type="submit" className="primary-button" disabled={pending}>
          {pending ? 'Saving…' : account ? 'Save changes' : 'Add account'}
        </button>
        <button type="button" className="secondary-button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
