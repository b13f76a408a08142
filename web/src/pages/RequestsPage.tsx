import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api';
import { useAuth } from '../auth';
import { useConfirm } from '../components/confirm';
import { mockBase, ProjectHeader } from '../components/ProjectHeader';
import { Detail, Outcome, queryText, SessionBadge } from '../components/RequestDetail';
import { EmptyState, ErrorBanner, formatMs, formatTime, MethodBadge, Spinner, StatusBadge } from '../components/ui';
import { useLoad } from '../hooks';
import { followStream, type StreamStatus } from '../sse';
import type { LogEntry, Rule } from '../types';
import { NotFoundProject } from './ProjectPage';

const MAX_ENTRIES = 500;

type SessionFilter = { kind: 'all' } | { kind: 'none' } | { kind: 'one'; session: string };
const filterValue = (f: SessionFilter) => (f.kind === 'one' ? `s:${f.session}` : f.kind);
const parseFilter = (v: string): SessionFilter =>
  v.startsWith('s:') ? { kind: 'one', session: v.slice(2) } : v === 'none' ? { kind: 'none' } : { kind: 'all' };
const passes = (f: SessionFilter, e: LogEntry) =>
  f.kind === 'all' ? true : f.kind === 'none' ? !e.session : e.session === f.session;

export function RequestsPage({ projectId }: { projectId: string }) {
  const confirm = useConfirm();
  const { user } = useAuth();
  const project = useLoad((s) => api.project(projectId, s), [projectId]);
  const endpoints = useLoad((s) => api.endpoints(projectId, s), [projectId]);
  const [entries, setEntries] = useState<LogEntry[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const [paused, setPaused] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [filter, setFilter] = useState<SessionFilter>({ kind: 'all' });
  const [rulesById, setRulesById] = useState<Map<string, Rule>>(new Map());
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const fetchedEndpoints = useRef(new Set<string>());
  const [tick, setTick] = useState(0);

  const merge = useCallback((incoming: LogEntry[]) => {
    setEntries((old) => {
      const byId = new Map(old.map((e) => [e.id, e]));
      for (const e of incoming) byId.set(e.id, e);
      return [...byId.values()].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, MAX_ENTRIES);
    });
  }, []);

  // Stream first, then the backlog, so nothing that happens in between is missed (merged by id).
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick restarts the stream on demand
  useEffect(() => {
    if (!user) return;
    setEntries([]);
    setLoading(true);
    setError(null);
    const buffered: LogEntry[] = [];
    const stream = followStream(`/api/projects/${encodeURIComponent(projectId)}/requests/stream`, {
      onStatus: setStatus,
      onData: (data) => {
        let entry: LogEntry;
        try {
          entry = JSON.parse(data) as LogEntry;
        } catch {
          return;
        }
        if (!entry || typeof entry.id !== 'string') return;
        if (pausedRef.current) buffered.push(entry);
        else merge([entry]);
      },
    });
    const ctl = new AbortController();
    api
      .requests(projectId, 100, ctl.signal)
      .then((list) => merge(list))
      .catch((err) => {
        if (!ctl.signal.aborted) setError(err instanceof Error ? err.message : String(err));
      })
      .finally(() => {
        if (!ctl.signal.aborted) setLoading(false);
      });
    const flush = window.setInterval(() => {
      if (!pausedRef.current && buffered.length) merge(buffered.splice(0));
    }, 500);
    return () => {
      stream.close();
      ctl.abort();
      window.clearInterval(flush);
    };
  }, [projectId, user, merge, tick]);

  // Rules of the endpoints seen, to name matched rules and show failed conditions.
  useEffect(() => {
    const ids = new Set(entries.map((e) => e.endpointId).filter((x): x is string => !!x));
    for (const id of ids) {
      if (fetchedEndpoints.current.has(id)) continue;
      fetchedEndpoints.current.add(id);
      api
        .rules(projectId, id)
        .then((rules) =>
          setRulesById((m) => {
            const n = new Map(m);
            for (const r of rules) n.set(r.id, r);
            return n;
          }),
        )
        .catch(() => {});
    }
  }, [entries, projectId]);

  const endpointsById = useMemo(() => new Map((endpoints.data ?? []).map((e) => [e.id, e])), [endpoints.data]);
  const current = entries.find((e) => e.id === selected) ?? null;
  const sessions = useMemo(() => {
    const seen = new Set<string>();
    for (const e of entries) if (e.session) seen.add(e.session);
    return [...seen].sort();
  }, [entries]);
  const shown = useMemo(() => entries.filter((e) => passes(filter, e)), [entries, filter]);

  if (project.apiError?.status === 404) return <NotFoundProject />;
  if (!project.data)
    return project.error ? <ErrorBanner error={project.error} onRetry={project.reload} /> : <Spinner />;

  const statusText = paused
    ? 'Paused'
    : status === 'live'
      ? 'Live'
      : status === 'connecting'
        ? 'Connecting…'
        : status === 'reconnecting'
          ? 'Reconnecting…'
          : 'Disconnected';

  return (
    <div className="page">
      <ProjectHeader project={project.data} tab="requests" onRenamed={(p) => project.setData(() => p)} />
      <div className="section-head">
        <div className="live-head">
          <h2 id="requests-title">Requests</h2>
          <span className={`live live-${paused ? 'paused' : status}`} role="status">
            <span className="live-dot" aria-hidden="true" />
            {statusText}
          </span>
          <span className="muted small">
            {filter.kind === 'all' ? `${entries.length} shown` : `${shown.length} of ${entries.length} shown`}
          </span>
        </div>
        <div className="row-actions">
          {(sessions.length > 0 || filter.kind !== 'all') && (
            <div className="inline-field">
              <label htmlFor="session-filter">Session</label>
              <select
                id="session-filter"
                value={filterValue(filter)}
                onChange={(e) => setFilter(parseFilter(e.target.value))}
              >
                <option value="all">All requests</option>
                <option value="none">No session</option>
                {filter.kind === 'one' && !sessions.includes(filter.session) && (
                  <option value={filterValue(filter)}>{filter.session}</option>
                )}
                {sessions.map((s) => (
                  <option key={s} value={`s:${s}`}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
          )}
          <button type="button" className="btn btn-small" aria-pressed={paused} onClick={() => setPaused((p) => !p)}>
            {paused ? 'Resume' : 'Pause'}
          </button>
          <button type="button" className="btn btn-small" onClick={() => setTick((t) => t + 1)}>
            Reload
          </button>
          <button
            type="button"
            className="btn btn-small btn-ghost"
            onClick={() => {
              setEntries([]);
              setSelected(null);
              setFilter({ kind: 'all' });
            }}
            disabled={entries.length === 0}
          >
            Clear view
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger-ghost"
            title={
              filter.kind === 'one'
                ? `Delete the logged requests of session ${filter.session}`
                : 'Delete every logged request of this project'
            }
            onClick={async () => {
              const session = filter.kind === 'one' ? filter.session : undefined;
              const ok = await confirm({
                title: session ? `Delete the log of session ${session}?` : 'Delete the request log?',
                message: <p>Verification counts (requests/count) start again from zero.</p>,
                confirmLabel: 'Delete',
                danger: true,
              });
              if (!ok) return;
              await api.clearRequests(projectId, session);
              setEntries((list) => (session ? list.filter((e) => e.session !== session) : []));
              setSelected(null);
            }}
          >
            Delete log
          </button>
        </div>
      </div>
      <ErrorBanner error={error} onRetry={() => setTick((t) => t + 1)} />
      {loading && entries.length === 0 ? (
        <Spinner label="Loading requests…" />
      ) : entries.length === 0 ? (
        <EmptyState title="Waiting for requests">
          Call one of this project's mock URLs, e.g.{' '}
          <code className="wrap">
            curl {mockBase(project.data ?? { id: projectId })}
            {endpoints.data?.[0]?.path ?? '/your/path'}
          </code>
          , and it shows up here at once. Add <code>-H 'X-Mockyard-Session: run-1'</code> to give a test run its own
          sequences and storage; requests are tagged with their session.
        </EmptyState>
      ) : (
        <div className="requests">
          <ul className="request-list" aria-labelledby="requests-title">
            {shown.length === 0 && (
              <li className="muted center request-none">
                No request {filter.kind === 'one' ? `of session ${filter.session}` : 'without a session'} in this view.
              </li>
            )}
            {shown.map((e) => {
              const q = queryText(e.query);
              return (
                <li key={e.id}>
                  <button
                    type="button"
                    className="request-row"
                    aria-current={e.id === selected ? 'true' : undefined}
                    onClick={() => {
                      setSelected(e.id);
                      requestAnimationFrame(() => {
                        const el = document.getElementById('detail-title');
                        el?.focus({ preventScroll: true });
                        if (window.matchMedia('(max-width: 900px)').matches) el?.scrollIntoView({ block: 'start' });
                      });
                    }}
                  >
                    <span className="rq-time">{formatTime(e.at)}</span>
                    <MethodBadge method={e.method} />
                    <span className="rq-where">
                      <span className="rq-path mono">
                        {e.path}
                        {q && <span className="muted">?{q}</span>}
                      </span>
                      {e.session && <SessionBadge session={e.session} />}
                    </span>
                    <StatusBadge code={e.statusCode} />
                    <span className="rq-rule">
                      <Outcome e={e} rulesById={rulesById} />
                    </span>
                    <span className="rq-ms muted small">{formatMs(e.durationMs)}</span>
                  </button>
                </li>
              );
            })}
          </ul>
          <aside className="card detail-pane" aria-label="Request details">
            {current ? (
              <Detail
                e={current}
                endpoint={current.endpointId ? endpointsById.get(current.endpointId) : undefined}
                projectId={projectId}
                rulesById={rulesById}
              />
            ) : (
              <p className="muted center">Select a request to see its headers, body, actions and rule matches.</p>
            )}
          </aside>
        </div>
      )}
    </div>
  );
}
