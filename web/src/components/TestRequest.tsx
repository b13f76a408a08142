import { type FormEvent, useState } from 'react';
import type { Endpoint } from '../types';
import { HeaderTable, StatusBadge } from './ui';

/** A path with sample values for its parameters: `:id` → 1, `:slug` → slug, a final `*` → anything. */
export function samplePath(path: string): string {
  return path
    .split('/')
    .map((seg) => {
      if (seg === '*') return 'anything';
      if (!seg.startsWith(':')) return seg;
      const name = seg.slice(1);
      return /id$/i.test(name) ? '1' : name;
    })
    .join('/');
}

interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
  ms: number;
}

/**
 * "Send test request": the endpoint's method on a path with sample values, optional headers and
 * body, sent from the browser to the mock URL; the answer is shown here and the request appears in
 * Live requests like any other.
 */
export function TestRequest({ endpoint, base }: { endpoint: Endpoint; base: string }) {
  const [path, setPath] = useState(samplePath(endpoint.path));
  const [headers, setHeaders] = useState('');
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const bodyless = endpoint.method === 'GET' || endpoint.method === 'HEAD';
  const send = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const h = new Headers();
    for (const line of headers.split('\n')) {
      const i = line.indexOf(':');
      if (i > 0) {
        try {
          h.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
        } catch {
          setError(`Not a header: ${line}`);
          setBusy(false);
          return;
        }
      }
    }
    const started = performance.now();
    try {
      const r = await fetch(`${base}${path.startsWith('/') ? path : `/${path}`}`, {
        method: endpoint.method,
        headers: h,
        body: bodyless || body === '' ? undefined : body,
      });
      const text = await r.text();
      setAnswer({
        status: r.status,
        statusText: r.statusText,
        headers: [...r.headers.entries()],
        body: text,
        ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <details className="card test-request">
      <summary>Send a test request</summary>
      <form onSubmit={send} aria-label="Test request">
        <div className="field">
          <label htmlFor="test-path">
            {endpoint.method} path (sample values in place of <code>:name</code>)
          </label>
          <input id="test-path" className="mono" value={path} onChange={(e) => setPath(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="test-headers">Headers, one “name: value” per line</label>
          <textarea id="test-headers" rows={2} value={headers} onChange={(e) => setHeaders(e.target.value)} />
        </div>
        {!bodyless && (
          <div className="field">
            <label htmlFor="test-body">Body</label>
            <textarea id="test-body" rows={3} value={body} onChange={(e) => setBody(e.target.value)} />
          </div>
        )}
        <button type="submit" className="btn btn-small btn-primary" disabled={busy}>
          {busy ? 'Sending…' : 'Send'}
        </button>
      </form>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {answer && (
        <section className="test-answer" aria-label="Test answer" aria-live="polite">
          <p>
            <StatusBadge code={answer.status} /> {answer.statusText} · {answer.ms} ms · it is in Live requests too
          </p>
          <HeaderTable entries={answer.headers} />
          {answer.body ? <pre className="code-block">{answer.body}</pre> : <p className="muted small">Empty body.</p>}
        </section>
      )}
    </details>
  );
}
