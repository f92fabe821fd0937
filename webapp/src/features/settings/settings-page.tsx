import { useState } from 'react';

import { Spinner } from '@/components/ui/spinner';
import { useDocumentTitle } from '@/hooks/use-document-title';
import { useToolsBySlug } from '@/lib/tools';

import { ProviderAccountForm } from '@/features/settings/provider-account-form';
import {
  type ConnectionAnswer,
  type ProviderAccount,
  type ProviderAccountInput,
  type ProviderKindInfo,
  useCreateProviderAccount,
  useDeleteProviderAccount,
  useProviderAccounts,
  useProviderCatalogue,
  useTestProviderAccount,
  useUpdateProviderAccount,
} from '@/features/settings/providers-api';
import { UsageSection } from '@/features/settings/usage-section';

import '@/features/settings/settings-page.css';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

type Editing = { mode: 'add' } | { mode: 'edit'; account: ProviderAccount } | null;

export function SettingsPage() {
  useDocumentTitle('Settings');
  const catalogue = useProviderCatalogue();
  const accounts = useProviderAccounts();
  const tools = useToolsBySlug();
  const [editing, setEditing] = useState<Editing>(null);
  const create = useCreateProviderAccount();
  const update = useUpdateProviderAccount();

  const toolName = (slug: string) => tools.get(slug)?.name ?? tools.get(slug.split('.')[0])?.name ?? slug;
  const kinds = catalogue.data?.kinds ?? [];
  const canManage = catalogue.data?.can_manage ?? false;

  const open = (next: Editing) => {
    create.reset();
    update.reset();
    setEditing(next);
  };

  const save = (input: ProviderAccountInput) => {
    const done = { onSuccess: () => setEditing(null) };
    if (editing?.mode === 'edit') {
      const { kind: _kind, api_key, ...rest } = input;
      update.mutate({ id: editing.account.id, patch: api_key ? { ...rest, api_key } : rest }, done);
    } else {
      create.mutate(input, done);
    }
  };
  const saving = editing?.mode === 'edit' ? update : create;

  return (
    <section className="settings-page" aria-labelledby="settings-title">
      <header className="tool-header">
        <div>
          <p className="eyebrow">Organisation</p>
          <h1 id="settings-title">Settings</h1>
        </div>
      </header>

      <section aria-labelledby="providers-title">
        <h2 id="providers-title">Provider accounts</h2>
        <p className="muted">
          Generative tools run on your organisation&apos;s own account at a model service when it has one for the tool; otherwise on
          Atelier&apos;s, or as a local preview.
        </p>
        {catalogue.isSuccess && !canManage ? (
          <p className="settings-note" role="note">
            Only your organisation&apos;s admins can add, change or delete provider accounts.
          </p>
        ) : null}

        {accounts.isPending || catalogue.isPending ? (
          <Spinner />
        ) : accounts.isError ? (
          <p role="alert" className="field-error">
            Could not list the provider accounts: {errorText(accounts.error)}
          </p>
        ) : accounts.data.length === 0 ? (
          <p className="muted">No provider account yet.</p>
        ) : (
          <table className="file-table provider-table">
            <caption className="visually-hidden">Provider accounts</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Label</th>
                <th scope="col">Key</th>
                <th scope="col">Tools and models</th>
                <th scope="col">On failure</th>
                {canManage ? (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {accounts.data.map((account) => (
                <AccountRow
                  key={account.id}
                  account={account}
                  kind={kinds.find((row) => row.kind === account.kind)}
                  toolName={toolName}
                  canManage={canManage}
                  onEdit={() => open({ mode: 'edit', account })}
                />
              ))}
            </tbody>
          </table>
        )}

        {canManage && editing === null ? (
          <button type="button" className="primary-button" onClick={() => open({ mode: 'add' })}>
            Add a provider account
          </button>
        ) : null}
        {canManage && editing !== null ? (
          <ProviderAccountForm
            key={editing.mode === 'edit' ? editing.account.id : 'add'}
            kinds={kinds}
            account={editing.mode === 'edit' ? editing.account : undefined}
            toolName={toolName}
            pending={saving.isPending}
            error={saving.isError ? errorText(saving.error) : null}
            onSubmit={save}
            onCancel={() => setEditing(null)}
          />
        ) : null}
      </section>

      <UsageSection toolName={toolName} kindLabels={new Map(kinds.map((row) => [row.kind, row.label]))} />
    </section>
  );
}

type RowProps = {
  account: ProviderAccount;
  kind: ProviderKindInfo | undefined;
  toolName: (slug: string) => string;
  canManage: boolean;
  onEdit: () => void;
};

function AccountRow({ account, kind, toolName, canManage, onEdit }: RowProps) {
  const test = useTestProviderAccount();
  const remove = useDeleteProviderAccount();
  const [confirming, setConfirming] = useState(false);
  const name = account.label || kind?.label || account.kind;

  return (
    <tr>
      <td>{kind?.label ?? account.kind}</td>
      <td>{account.label || <span className="muted">—</span>}</td>
      <td>
        <code aria-label={`Key ending ${account.key_last4}`}>•••• {account.key_last4}</code>
      </td>
      <td>
        {account.tools.length === 0 ? <p className="small muted">Every tool it runs</p> : null}
        <ul className="provider-tools">
          {account.serves.map((slug) => (
            <li key={slug}>
              {toolName(slug)}
              {account.models[slug] ? <span className="muted"> · {account.models[slug]}</span> : null}
            </li>
          ))}
        </ul>
      </td>
      <td>{account.fallback_local ? 'Local preview' : 'Job fails'}</td>
      {canManage ? (
        <td className="file-actions">
          <button type="button" className="secondary-button" disabled={test.isPending} onClick={() => test.mutate(account.id)}>
            {test.isPending ? 'Testing…' : 'Test connection'}
          </button>
          <button type="button" className="secondary-button" onClick={onEdit} aria-label={`Edit ${name}`}>
            Edit
          </button>
          {confirming ? (
            <>
              <button type="button" className="secondary-button" disabled={remove.isPending} onClick={() => remove.mutate(account.id)}>
                Delete {name}
              </button>
              <button type="button" className="secondary-button" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </>
          ) : (
            <button type="button" className="secondary-button" onClick={() => setConfirming(true)} aria-label={`Delete ${name}…`}>
              Delete…
            </button>
          )}
          <ConnectionResult answer={test.data} error={test.isError ? errorText(test.error) : null} />
          {remove.isError ? (
            <p role="alert" className="field-error">
              Delete failed: {errorText(remove.error)}
            </p>
          ) : null}
        </td>
      ) : null}
    </tr>
  );
}

function ConnectionResult({ answer, error }: { answer: ConnectionAnswer | undefined; error: string | null }) {
  if (error) {
    return (
      <p role="status" className="field-error">
        {error}
      </p>
    );
  }
  if (!answer) return null;
  return (
    <p role="status" className={answer.ok ? 'connection-ok' : 'field-error'}>
      {answer.ok ? '✓ ' : '✗ '}
      {answer.message}
    </p>
  );
}
