import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

import { useToolDrives } from '@/lib/drives';
import type { Drive, DriveRole } from '@/types/api';

/** A drive link: local drives open our drive browser, the others their provider in a new tab. */
export function DriveLink({ drive, children, className = 'drive-link' }: { drive: Drive; children?: ReactNode; className?: string }) {
  const content = children ?? drive.label;
  if (drive.kind === 'local' || drive.url.startsWith('/')) {
    return (
      <Link className={className} to={drive.url}>
        {content}
      </Link>
    );
  }
  return (
    <a className={className} href={drive.url} target="_blank" rel="noopener noreferrer">
      {content}
      <span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}

/** Input and output drive links of a tool, from GET /api/drives/. */
export function DriveLinks({ tool, role }: { tool: string; role?: DriveRole }) {
  const drives = useToolDrives(tool, role);
  if (drives.length === 0) return null;
  return (
    <nav className="drive-links" aria-label="Drives">
      {drives.map((drive) => (
        <DriveLink key={`${drive.role}-${drive.folder}`} drive={drive} className="secondary-button drive-link" />
      ))}
    </nav>
  );
}
