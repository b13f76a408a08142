import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { Link, paths } from '../router';
import type { Endpoint, LogEntry, Rule } from '../types';
import { Outcome, RuleTrace } from './RequestDetail';
import { HeaderTable, StatusBadge } from './ui';

/** The header that finds a test request's log entry again (verification's `find`). */
export const TEST_HEADER = 'x-mockyard-test';
const NO_RULES = new Map<string, Rule>();
const testTag = () => `t-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

/** The log entry of the request sent with `tag`: asked a few times, as the log is written in batches. */
async function findEntry(endpoint: Endpoint, tag: string): Promise<LogEntry | null> {
  for (let i = 0; i < 10; i++) {
    const found = await api.findRequests(endpoint.projectId, { headers: { [TEST_HEADER]: tag } });
    if (found.length > 0) return found[found.length - 1];
    await new Promise((r) => setTimeout(r, 150 * (i + 1)));
  }
  return null;
}

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
 * body, sent from the browser to the mock URL; the answer is shown here with the request's log entry
 * (found by a header of its own, `x-mockyard-test`): which rule answered and why the others did not.
 */
export function TestRequest({ endpoint, base }: { endpoint: Endpoint; base: string }) {
  const [path, setPath] = useState(samplePath(endpoint.path));
  const [headers, setHeaders] = useState('');
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [entry, setEntry] = useState<LogEntry | null | 'missing'>(null);
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
    const tag = testTag();
    h.set(TEST_HEADER, tag);
    setEntry(null);
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
      findEntry(endpoint, tag).then(
        (found) => setEntry(found ?? 'missing'),
        () => setEntry('missing'),
      );
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
          <h3>Its log entry</h3>
          {entry === null ? (
            <p className="muted small">Looking it up…</p>
          ) : entry === 'missing' ? (
            <p className="muted small">Not found in the request log.</p>
          ) : (
            <>
              <p>
                Answered by <Outcome e={entry} rulesById={NO_RULES} />
                {entry.response?.step && ` · step ${entry.response.step.index + 1} of ${entry.response.step.of}`} ·{' '}
                <Link href={paths.requests(endpoint.projectId)}>Live requests</Link>
              </p>
              <RuleTrace e={entry} rulesById={NO_RULES} />
            </>
          )}
        </section>
      )}
    </details>
  );
}
