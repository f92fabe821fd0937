import { type FormEvent, useId, useState } from 'react';

import {
  type ConnectorInput,
  type DriveConnector as Connector,
  useClearConnector,
  useConnector,
  useSetConnector,
  useTestConnector,
} from '@/features/drives/connector-api';
import '@/features/drives/drive-connector.css';

type Target = 's3' | 'google';

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : 'Something went wrong.';
}

/**
 * Where a drive folder lives, and for the organisation's admins: connect it to their own S3
 * bucket or Google Drive folder, test the connection, or take it back to the local folder.
 */
export function DriveConnectorSection({ folder }: { folder: string }) {
  const connector = useConnector(folder);
  const test = useTestConnector(folder);
  const clear = useClearConnector(folder);
  const [editing, setEditing] = useState(false);
  const headingId = useId();

  if (!connector.data) return null; // nothing to say until it is known
  const current = connector.data;
  const connected = current.kind !== 'local';

  return (
    <section className="drive-connector" aria-labelledby={headingId}>
      <h2 id={headingId}>Connection</h2>
      <p>
        {connected ? 'Connected to ' : 'Files are kept in '}
        {current.where}.
      </p>
      {current.credentials ? <p className="small muted">Credentials: {current.credentials}</p> : null}
      {current.can_manage ? (
        <div className="connector-actions">
          <button type="button" className="secondary-button" disabled={test.isPending} onClick={() => test.mutate()}>
            {test.isPending ? 'Testing…' : 'Test connection'}
          </button>
          <button type="button" className="secondary-button" onClick={() => setEditing((open) => !open)}>
            {connected ? 'Change connection' : 'Connect a bucket or Drive folder'}
          </button>
          {connected ? (
            <button type="button" className="secondary-button danger" disabled={clear.isPending} onClick={() => clear.mutate()}>
              Back to the local folder
            </button>
          ) : null}
        </div>
      ) : null}
      {test.isSuccess ? (
        <p role="status" className="connector-ok">
          ✓ {test.data.message}
        </p>
      ) : null}
      {test.isError ? (
        <p role="status" className="field-error">
          ✗ {errorText(test.error)}
        </p>
      ) : null}
      {clear.isError ? (
        <p role="alert" className="field-error">
          {errorText(clear.error)}
        </p>
      ) : null}
      {current.can_manage && editing ? (
        <ConnectorForm folder={folder} current={current} onDone={() => setEditing(false)} />
      ) : null}
    </section>
  );
}

function ConnectorForm({ folder, current, onDone }: { folder: string; current: Connector; onDone: () => void }) {
  const id = useId();
  const save = useSetConnector(folder);
  const [target, setTarget] = useState<Target>(current.kind === 'google' ? 'google' : 's3');
  const [endpoint, setEndpoint] = useState(current.endpoint_url);
  const [region, setRegion] = useState(current.region);
  const [bucket, setBucket] = useState(current.bucket);
  const [prefix, setPrefix] = useState(current.prefix);
  const [accessKey, setAccessKey] = useState('');
  const [secretKey, setSecretKey] = useState('');
  const [folderId, setFolderId] = useState(current.folder_id);
  const [serviceAccount, setServiceAccount] = useState('');
  // Credentials left empty keep the stored ones, when the folder already has some of this kind.
  const keeps = current.kind === target && Boolean(current.credentials);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    let input: ConnectorInput;
    if (target === 's3') {
      input = { kind: 's3', endpoint_url: endpoint.trim(), region: region.trim(), bucket: bucket.trim(), prefix: prefix.trim() };
      if (!keeps || accessKey.trim() || secretKey.trim()) {
        input.access_key_id = accessKey.trim();
        input.secret_access_key = secretKey.trim();
      }
    } else {
      input = { kind: 'google', folder_id: folderId.trim() };
      if (!keeps || serviceAccount.trim()) input.service_account = serviceAccount.trim();
    }
    save.mutate(input, { onSuccess: onDone });
  };

  const hint = keeps ? `Stored: ${current.credentials}. Leave empty to keep it.` : 'Stored encrypted; never shown again.';
  return (
    <form className="connector-form" aria-label="Connect this folder" onSubmit={submit}>
      <div className="field">
        <label htmlFor={`${id}-target`}>Connect to</label>
        <select id={`${id}-target`} value={target} onChange={(event) => setTarget(event.target.value as Target)}>
          <option value="s3">S3 bucket</option>
          <option value="google">Google Drive folder</option>
        </select>
      </div>
      {target === 's3' ? (
        <>
          <div className="field">
            <label htmlFor={`${id}-endpoint`}>Endpoint URL</label>
            <input
              id={`${id}-endpoint`}
              type="url"
              value={endpoint}
              placeholder="https://s3.eu-west-3.amazonaws.com"
              onChange={(event) => setEndpoint(event.target.value)}
            />
            <p className="field-hint">Empty for AWS; any S3-compatible store&apos;s address otherwise.</p>
          </div>
          <div className="field">
            <label htmlFor={`${id}-region`}>Region</label>
            <input id={`${id}-region`} value={region} maxLength={64} onChange={(event) => setRegion(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-bucket`}>Bucket</label>
            <input id={`${id}-bucket`} value={bucket} required maxLength={63} onChange={(event) => setBucket(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-prefix`}>Prefix</label>
            <input id={`${id}-prefix`} value={prefix} maxLength={400} placeholder="looks/recolor/in" onChange={(event) => setPrefix(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-access`}>Access key ID</label>
            <input
              id={`${id}-access`}
              value={accessKey}
              required={!keeps}
              autoComplete="off"
              spellCheck={false}
              onChange={(event) => setAccessKey(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-secret`}>Secret access key</label>
            <input
              id={`${id}-secret`}
              type="password"
              value={secretKey}
              required={!keeps}
              autoComplete="new-password"
              onChange={(event) => setSecretKey(event.target.value)}
            />
            <p className="field-hint">{hint}</p>
          </div>
        </>
      ) : (
        <>
          <div className="field">
            <label htmlFor={`${id}-sa`}>Service account JSON key</label>
            <textarea
              id={`${id}-sa`}
              value={serviceAccount}
              rows={4}
              required={!keeps}
              spellCheck={false}
              autoComplete="off"
              onChange={(event) => setServiceAccount(event.target.value)}
            />
            <p className="field-hint">{hint} Share the folder (in a shared drive) with the account&apos;s e-mail.</p>
          </div>
          <div className="field">
            <label htmlFor={`${id}-folder`}>Folder ID</label>
            <input id={`${id}-folder`} value={folderId} required maxLength={200} onChange={(event) => setFolderId(event.target.value)} />
            <p className="field-hint">The last part of the folder&apos;s address in Google Drive.</p>
          </div>
        </>
      )}
      {save.isError ? (
        <p role="alert" className="field-error">
          {errorText(save.error)}
        </p>
      ) : null}
      <div className="connector-form-actions">
        <button type="submit" className="primary-button" disabled={save.isPending}>
          {save.isPending ? 'Connecting…' : 'Connect'}
        </button>
        <button type="button" className="secondary-button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
