import { type ChangeEvent, type DragEvent, useId, useRef, useState } from 'react';
import { useParams } from 'react-router-dom';

import { Spinner } from '@/components/ui/spinner';
import { DriveConnectorSection } from '@/features/drives/drive-connector';
import { useDeleteDriveFile, useDriveFiles, useDrives, useUploadDriveFiles } from '@/lib/drives';
import { formatBytes, formatTimestamp } from '@/lib/format';

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : 'Something went wrong.';
}

/** A drive folder: list, upload (drop or picker), download and delete its files; where it is
 * kept (local, or an admin's S3 bucket or Google Drive folder). */
export function DriveBrowserPage() {
  const { folder = '' } = useParams();
  const drives = useDrives();
  const files = useDriveFiles(folder);
  const upload = useUploadDriveFiles(folder);
  const remove = useDeleteDriveFile(folder);
  const [dragging, setDragging] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const inputId = useId();

  const drive = drives.data?.find((item) => item.folder === folder);
  const title = drive ? drive.label : 'Drive';

  const send = (list: FileList | null) => {
    const picked = list ? Array.from(list) : [];
    if (picked.length > 0) upload.mutate(picked);
  };
  const onPick = (event: ChangeEvent<HTMLInputElement>) => {
    send(event.target.files);
    event.target.value = ''; // picking the same file again must fire change again
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    send(event.dataTransfer.files);
  };

  return (
    <article className="drive-page" aria-labelledby="drive-title">
      <header className="tool-header">
        <div>
          <p className="eyebrow">Drive{drive ? ` · ${drive.tool}` : ''}</p>
          <h1 id="drive-title">{title}</h1>
        </div>
      </header>

      <DriveConnectorSection folder={folder} />

      <div
        className={`drop-zone${dragging ? ' is-dragging' : ''}`}
        data-testid="drop-zone"
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>Drop files here to upload them, or</p>
        <label htmlFor={inputId} className="secondary-button">
          Choose files
        </label>
        <input id={inputId} ref={inputRef} type="file" multiple className="visually-hidden" onChange={onPick} />
        {upload.isPending ? (
          <p role="status" className="small">
            Uploading…
          </p>
        ) : null}
      </div>

      {upload.isError ? (
        <p role="alert" className="field-error">
          {errorText(upload.error)}
        </p>
      ) : null}
      {remove.isError ? (
        <p role="alert" className="field-error">
          Delete failed: {errorText(remove.error)}
        </p>
      ) : null}

      {files.isPending ? (
        <Spinner />
      ) : files.isError ? (
        <p role="alert" className="field-error">
          Could not list this drive: {errorText(files.error)}
        </p>
      ) : files.data.length === 0 ? (
        <p className="muted">This drive is empty.</p>
      ) : (
        <table className="file-table">
          <caption className="visually-hidden">Files in {title}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Modified</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {files.data.map((file) => (
              <tr key={file.id}>
                <td>{file.name}</td>
                <td>{formatBytes(file.size)}</td>
                <td>{formatTimestamp(file.modified_at)}</td>
                <td className="file-actions">
                  <a className="secondary-button" href={file.url} download={file.name} aria-label={`Download ${file.name}`}>
                    Download
                  </a>
                  <button
                    type="button"
                    className="secondary-button danger"
                    aria-label={`Delete ${file.name}`}
                    disabled={remove.isPending && remove.variables === file.id}
                    onClick={() => remove.mutate(file.id)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
