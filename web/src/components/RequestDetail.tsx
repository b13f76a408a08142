/** One request-log entry in detail: the request, the rules' trace, the actions and the answer. */

import { useState } from 'react';
import { NearestEndpoints } from '../components/NearestEndpoints';
import { StreamEvents } from '../components/StreamEvents';
import { CopyButton, formatMs, HeaderTable, MethodBadge, StatusBadge } from '../components/ui';
import { Link, paths } from '../router';
import { describeCondition } from '../rules/draft';
import type { Endpoint, LogEntry, Rule } from '../types';
import { Conversation } from './Conversation';
import { curlOf, replayInit, requestUrl, ruleStatuses } from './inspect';

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
const quoted = (v: string | undefined) => (v === undefined ? 'nothing' : `“${v}”`);

/**
 * Every rule of the endpoint in evaluation order and what it did with this request: matched, failed
 * at condition N (expected vs received), skipped as inactive, or not reached.
 */
export function RuleTrace({ e, rulesById }: { e: LogEntry; rulesById: Map<string, Rule> }) {
  const traces = e.rules ?? [];
  const statuses = ruleStatuses(e, [...rulesById.values()]);
  if (statuses.length === 0 && traces.length === 0) return <p className="muted small">No rules were evaluated.</p>;
  if (statuses.length === 0)
    // the rules are not loaded (or were deleted): the trace as logged
    return (
      <ol className="trace" aria-label="Rules">
        {traces.map((t) => (
          <li key={t.ruleId} className={t.matched ? 'ok' : 'no'}>
            <span className="trace-mark" aria-hidden="true">
              {t.matched ? '✓' : '✗'}
            </span>
            <div>
              <strong>{t.name}</strong> — {t.matched ? 'matched' : 'did not match'}
              {t.failedCondition !== undefined && <div className="small">Condition {t.failedCondition + 1} failed</div>}
              {t.reason && <div className="small muted">{t.reason}</div>}
            </div>
          </li>
        ))}
      </ol>
    );
  const LABEL = {
    matched: 'matched',
    failed: 'did not match',
    inactive: 'skipped: inactive',
    not_reached: 'not reached',
  };
  return (
    <ol className="trace" aria-label="Rules">
      {statuses.map((s) => (
        <li key={s.rule.id} className={s.status === 'matched' ? 'ok' : s.status === 'failed' ? 'no' : 'skip'}>
          <span className="trace-mark" aria-hidden="true">
            {s.status === 'matched' ? '✓' : s.status === 'failed' ? '✗' : '–'}
          </span>
          <div>
            <strong>{s.rule.name}</strong> — {LABEL[s.status]}
            {s.rule.id === e.ruleId && <span className="tag tag-rule small">answered</span>}
            {s.status === 'failed' && s.index !== undefined && (
              <div className="small">
                Condition {s.index + 1}
                {s.condition && (
                  <>
                    : <code>{describeCondition(s.condition)}</code> — received{' '}
                    {s.received.known ? (
                      <code>{quoted(s.received.value)}</code>
                    ) : (
                      <span className="muted">a stored value or variable (not in the log)</span>
                    )}
                  </>
                )}
              </div>
            )}
            {s.status === 'failed' && s.index === undefined && s.reason && (
              <div className="small muted">{s.reason}</div>
            )}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** Copy as curl, and send the request again (the new entry arrives in the live list). */
function ReplayActions({ e, base }: { e: LogEntry; base: string }) {
  const [replay, setReplay] = useState<string | null>(null);
  return (
    <div className="row-actions detail-actions">
      <CopyButton text={curlOf(e, base)} label="Copy as curl" what="curl command" />
      <button
        type="button"
        className="btn btn-small"
        onClick={async () => {
          setReplay('Sending…');
          try {
            const r = await fetch(requestUrl(e, base), replayInit(e));
            setReplay(`Replayed: ${r.status} ${r.statusText}`.trim());
          } catch (err) {
            setReplay(`Replay failed: ${err instanceof Error ? err.message : String(err)}`);
          }
        }}
      >
        Replay
      </button>
      {replay && (
        <span className="muted small" role="status">
          {replay}
        </span>
      )}
    </div>
  );
}

const FAULT_TEXT: Record<string, string> = {
  connection_reset: 'the connection was reset (ECONNRESET)',
  empty_response: 'the connection closed without a byte',
  malformed_body: 'a 200 status line, then a broken chunked body',
};

/** What the client got: the step of its rule's sequence, the delay, a fault, headers and body. */
function AnswerSent({ e }: { e: LogEntry }) {
  const r = e.response;
  if (!r) {
    return (
      <>
        <h3>Answer sent</h3>
        <p className="muted small">
          {e.proxied
            ? 'Forwarded to the fallback URL: the target’s answer is not kept.'
            : e.error
              ? `An error of Mockyard’s own (${e.error}).`
              : 'Not recorded for this request.'}
        </p>
        {e.warning && (
          <p className="small" role="note">
            Warning: {e.warning}
          </p>
        )}
      </>
    );
  }
  const headers = Object.entries(r.headers);
  return (
    <>
      <h3>Answer sent</h3>
      {(r.step || r.delayMs || r.fault || r.events) && (
        <dl className="facts">
          {r.step && (
            <>
              <dt>Step</dt>
              <dd>
                {r.step.index + 1} of {r.step.of}
              </dd>
            </>
          )}
          {r.delayMs ? (
            <>
              <dt>Delay</dt>
              <dd>{formatMs(r.delayMs)}</dd>
            </>
          ) : null}
          {r.events ? (
            <>
              <dt>Events</dt>
              <dd>
                {r.events} over {formatMs(e.durationMs)}
              </dd>
            </>
          ) : null}
          {r.fault && (
            <>
              <dt>Fault</dt>
              <dd>{FAULT_TEXT[r.fault] ?? r.fault}</dd>
            </>
          )}
        </dl>
      )}
      {!r.fault && (
        <>
          <h4>Headers</h4>
          {headers.length === 0 ? <p className="muted small">None.</p> : <HeaderTable entries={headers} />}
          <h4>Body</h4>
          {r.body ? (
            <pre className="code-block" data-testid="answer-body">
              {prettyBody(r.body)}
            </pre>
          ) : (
            <p className="muted small">Empty.</p>
          )}
          {r.truncated && <p className="hint">Cut at 64 KiB.</p>}
          <StreamEvents response={r} />
        </>
      )}
    </>
  );
}

export function Detail({
  e,
  endpoint,
  projectId,
  rulesById,
  base,
  conversation,
}: {
  e: LogEntry;
  endpoint: Endpoint | undefined;
  projectId: string;
  rulesById: Map<string, Rule>;
  /** the project's mock base URL */
  base: string;
  /** a WebSocket entry's whole conversation (the entries of its socket) */
  conversation?: LogEntry[];
}) {
  const headers = Object.entries(e.headers ?? {});
  const q = queryText(e.query);
  return (
    <div className="detail">
      <h2 className="detail-title" id="detail-title" tabIndex={-1}>
        <MethodBadge method={e.method} />
        <span className="mono wrap">
          {e.path}
          {q ? `?${q}` : ''}
        </span>
      </h2>
      <ReplayActions key={e.id} e={e} base={base} />
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
      <NearestEndpoints e={e} />

      {conversation && conversation.length > 0 && (
        <Conversation entries={conversation} rulesById={rulesById} selected={e.id} />
      )}
      <h3>Rules</h3>
      <RuleTrace e={e} rulesById={rulesById} />
      <Violations e={e} />

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

      <AnswerSent e={e} />

      <h3>Request headers</h3>
      {headers.length === 0 ? <p className="muted small">None.</p> : <HeaderTable entries={headers} />}

      <h3>Request body</h3>
      {e.body ? <pre className="code-block">{prettyBody(e.body)}</pre> : <p className="muted small">Empty.</p>}
    </div>
  );
}

/** The contract violations of the request and its answer (docs/contract.md), beside the rule trace. */
function Violations({ e }: { e: LogEntry }) {
  const v = e.violations;
  if (!v || v.request.length + v.response.length === 0) return null;
  const item = (x: (typeof v.request)[number], i: number) => (
    <li key={i}>
      <strong>{x.in}</strong>
      {x.name ? <> {x.name}</> : null}
      {x.pointer !== undefined ? (
        <>
          {' '}
          <code>{x.pointer || '/'}</code>
        </>
      ) : null}
      : {x.message}
    </li>
  );
  return (
    <>
      <h3>Contract violations</h3>
      {v.request.length > 0 && (
        <ol className="trace" aria-label="Request violations">
          {v.request.map(item)}
        </ol>
      )}
      {v.response.length > 0 && (
        <>
          <p className="small">In the answer:</p>
          <ol className="trace" aria-label="Answer violations">
            {v.response.map(item)}
          </ol>
        </>
      )}
    </>
  );
}
