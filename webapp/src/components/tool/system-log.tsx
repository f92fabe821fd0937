import { useCallback, useState } from 'react';

export type LogLevel = 'log' | 'alert' | 'error';
export type LogLine = { level: LogLevel; text: string };

const PREFIX: Record<LogLevel, string> = { log: 'SYSTEM LOG', alert: 'SYSTEM ALERT', error: 'SYSTEM ERROR' };

/** 'SYSTEM ALERT: Provide both …' — the spec's log line prefixes (part 1, §4). */
export function formatLogLine({ level, text }: LogLine): string {
  return `${PREFIX[level]}: ${text}`;
}

/** A page's system log: `add` appends lines, `alert` one SYSTEM ALERT, `restart` starts it over. */
export function useSystemLog(initial: LogLine[] = []) {
  const [lines, setLines] = useState<LogLine[]>(initial);
  const add = useCallback((...more: LogLine[]) => setLines((current) => [...current, ...more]), []);
  const alert = useCallback((text: string) => add({ level: 'alert', text }), [add]);
  return { lines, add, alert, restart: setLines };
}

export function SystemLog({ lines }: { lines: LogLine[] }) {
  return (
    <div className="system-log" role="log" aria-label="System log" aria-live="polite">
      {lines.map((line, index) => (
        <p key={index} className={`log-line log-${line.level}`}>
          {formatLogLine(line)}
        </p>
      ))}
    </div>
  );
}
