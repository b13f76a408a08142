/** One request-log entry in detail: the request, the rules' trace, the actions and the answer. */
import { formatMs, MethodBadge, StatusBadge } from '../components/ui';
import { Link, paths } from '../router';
import { describeCondition } from '../rules/draft';
import type { Endpoint, LogEntry, Rule } from '../types';

export function queryText(q: LogEntry['query']): string {
  if (!q) return '';
  if (typeof q === 'string') return q.replace(/^\?/, '');
  return new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();
}

export function prettyBody(body: string): string {
  if (!body) return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function matchedName(e: LogEntry, rulesById: Map<string, Rule>): string | null {
  if (!e.ruleId) return null;
  return e.rules?.find((r) => r.ruleId === e.ruleId)?.name ?? rulesById.get(e.ruleId)?.name ?? 'a rule';
}

export function Outcome({ e, rulesById }: { e: LogEntry; rulesById: Map<string, Rule> }) {
  const name = matchedName(e, rulesById);
  if (e.proxied) return <span className="tag tag-proxy">proxied</span>;
  if (!e.endpointId) return <span className="tag tag-miss">no endpoint</span>;
  if (name) return <span className="tag tag-rule">{name}</span>;
  if (e.data)
    return (
      <span className="tag tag-rule" title="the collection operation answered">
        {e.data.collection} · {e.data.operation}
      </span>
    );
  if (e.error) return <span className="tag tag-miss">{e.error}</span>;
  return <span className="tag">default</span>;
}

export function SessionBadge({ session }: { session: string }) {
  return (
    <span className="tag tag-session" title={`X-Mockyard-Session: ${session}`}>
      <span className="sr-only">session </span>
      {session}
    </span>
  );
}

/** The session filter: every request, only those without a session, or one session's. */
export function Detail({
  e,
  endpoint,
  projectId,
  rulesById,
}: {
  e: LogEntry;
  endpoint: Endpoint | undefined;
  projectId: string;
  rulesById: Map<string, Rule>;
}) {
  const headers = Object.entries(e.headers ?? {});
  const q = queryText(e.query);
  const traces = e.rules ?? [];
  return (
    <div className="detail">
      <h2 className="detail-title" id="detail-title" tabIndex={-1}>
        <MethodBadge method={e.method} />
        <span className="mono wrap">
          {e.path}
          {q ? `?${q}` : ''}
        </span>
      </h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge code={e.statusCode} />
        </dd>
        <dt>Time</dt>
        <dd>{new Date(e.at).toLocaleString()}</dd>
        <dt>Duration</dt>
        <dd>{formatMs(e.durationMs)}</dd>
        <dt>Answered by</dt>
        <dd>
          <Outcome e={e} rulesById={rulesById} />
        </dd>
        <dt>Session</dt>
        <dd>{e.session ? <SessionBadge session={e.session} /> : <span className="muted">none (shared state)</span>}</dd>
        <dt>Endpoint</dt>
        <dd>
          {endpoint ? (
            <Link href={paths.endpoint(projectId, endpoint.id)}>
              {endpoint.method} {endpoint.path}
            </Link>
          ) : e.endpointId ? (
            <span className="muted">deleted endpoint</span>
          ) : (
            <span className="muted">none matched (404)</span>
          )}
        </dd>
      </dl>

      <h3>Rules</h3>
      {traces.length === 0 ? (
        <p className="muted small">No rules were evaluated.</p>
      ) : (
        <ol className="trace">
          {traces.map((t) => {
            const rule = rulesById.get(t.ruleId);
            const cond = t.failedCondition !== undefined ? rule?.conditions[t.failedCondition] : undefined;
            return (
              <li key={t.ruleId} className={t.matched ? 'ok' : 'no'}>
                <span className="trace-mark" aria-hidden="true">
                  {t.matched ? '✓' : '✗'}
                </span>
                <div>
                  <strong>{t.name}</strong> — {t.matched ? 'matched' : 'did not match'}
                  {t.failedCondition !== undefined && (
                    <div className="small">
                      Condition {t.failedCondition + 1} failed
                      {cond ? (
                        <>
                          : <code>{describeCondition(cond)}</code>
                        </>
                      ) : null}
                    </div>
                  )}
                  {t.reason && <div className="small muted">{t.reason}</div>}
                </div>
              </li>
            );
          })}
        </ol>
      )}

      <h3>Actions</h3>
      {e.actions.length === 0 ? (
        <p className="muted small">No actions ran.</p>
      ) : (
        <ol className="trace">
          {e.actions.map((a, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: outcomes have no id
            <li key={i} className={a.ok ? 'ok' : 'no'}>
              <span className="trace-mark" aria-hidden="true">
                {a.ok ? '✓' : '✗'}
              </span>
              <div>
                <strong>{a.type}</strong> — {a.ok ? 'succeeded' : 'failed'}
                {a.error && <div className="small">{a.error}</div>}
              </div>
            </li>
          ))}
        </ol>
      )}

      <h3>Request headers</h3>
      {headers.length === 0 ? (
        <p className="muted small">None.</p>
      ) : (
        <div className="table-wrap">
          <table className="kv-table">
            <tbody>
              {headers.map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td className="wrap">{v}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h3>Request body</h3>
      {e.body ? <pre className="code-block">{prettyBody(e.body)}</pre> : <p className="muted small">Empty.</p>}
    </div>
  );
}
