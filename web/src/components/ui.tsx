import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useToast } from './toast';

export function MethodBadge({ method }: { method: string }) {
  const m = method.toUpperCase();
  return <span className={`method method-${m.toLowerCase()}`}>{m}</span>;
}

export function StatusBadge({ code }: { code: number }) {
  const cls = code >= 500 ? 's5' : code >= 400 ? 's4' : code >= 300 ? 's3' : code >= 200 ? 's2' : 's1';
  return <span className={`status status-${cls}`}>{code}</span>;
}

export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

export function ErrorBanner({ error, onRetry }: { error: string | null | undefined; onRetry?: () => void }) {
  if (!error) return null;
  return (
    <div className="banner banner-error" role="alert">
      <span>{error}</span>
      {onRetry && (
        <button type="button" className="btn btn-small" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function FieldError({ id, messages }: { id?: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <p className="field-error" id={id} role="alert">
      {messages.join(' ')}
    </p>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <div className="empty-art" aria-hidden="true">
        ◇
      </div>
      <h3>{title}</h3>
      {children && <div className="empty-text">{children}</div>}
      {action}
    </div>
  );
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API needs a secure context; fall back to a hidden textarea.
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.className = 'offscreen';
    document.body.appendChild(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    ta.remove();
    return ok;
  }
}

/** A labelled line of copyable text (a URL or a command) with its copy button. */
export function CopyLine({
  label,
  text,
  what,
  testId,
}: {
  label: string;
  text: string;
  what: string;
  testId?: string;
}) {
  return (
    <div className="url-line">
      <span className="url-label">{label}</span>
      <code className="url" data-testid={testId}>
        {text}
      </code>
      <CopyButton text={text} what={what} />
    </div>
  );
}

export function CopyButton({ text, label = 'Copy', what }: { text: string; label?: string; what: string }) {
  const toast = useToast();
  const [done, setDone] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <button
      type="button"
      className="btn btn-small"
      aria-label={`${label} ${what}`}
      onClick={async () => {
        const ok = await copyText(text);
        toast(ok ? `Copied ${what}` : `Could not copy; select the text and copy it by hand`);
        if (ok) {
          setDone(true);
          window.clearTimeout(timer.current);
          timer.current = window.setTimeout(() => setDone(false), 1500);
        }
      }}
    >
      {done ? 'Copied ✓' : label}
    </button>
  );
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));
/**
 * HH:MM:SS in local time. Written out rather than with Intl: a locale formatter costs tens of
 * milliseconds to make, and the live list formats a time per row while requests flood in.
 */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Header names and values as a two-column table (a request's or an answer's). */
export function HeaderTable({ entries }: { entries: [string, string][] }) {
  return (
    <div className="table-wrap">
      <table className="kv-table">
        <tbody>
          {entries.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td className="wrap">{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
