import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api';
import { useAuth } from '../auth';
import { useConfirm } from '../components/confirm';
import { filtersToSearch, parseFilters, passesFilters, type RequestFilters } from '../components/inspect';
import { mockBase, ProjectHeader } from '../components/ProjectHeader';
import { Detail, Outcome, queryText, SessionBadge } from '../components/RequestDetail';
import { RequestFilterBar } from '../components/RequestFilters';
import { EmptyState, ErrorBanner, formatMs, formatTime, MethodBadge, Spinner, StatusBadge } from '../components/ui';
import { useLoad } from '../hooks';
import { navigate } from '../router';
import { followStream, type StreamStatus } from '../sse';
import type { LogEntry, Rule } from '../types';
import { NotFoundProject } from './ProjectPage';

const MAX_ENTRIES = 500;
/** px; .virtual-row in styles.css has this height */
const ROW_HEIGHT = 42;

/** Newest first: merges a batch into the list without re-sorting it (both sorted by time, newest first). */
function mergeNewest(old: LogEntry[], incoming: LogEntry[]): LogEntry[] {
  const fresh = incoming
    .filter((e) => !old.some((o) => o.id === e.id))
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  if (fresh.length === 0) return old;
  const out: LogEntry[] = [];
  let i = 0;
  let j = 0;
  while (out.length < MAX_ENTRIES && (i < fresh.length || j < old.length)) {
    if (j >= old.length || (i < fresh.length && fresh[i].at >= old[j].at)) out.push(fresh[i++]);
    else out.push(old[j++]);
  }
  return out;
}

/** One row of the live list; memoized, so a new entry renders one row, not five hundred. */
const RequestRow = memo(function RequestRow({
  e,
  selected,
  onSelect,
  rulesById,
  index,
  total,
  start,
}: {
  e: LogEntry;
  selected: boolean;
  onSelect: (id: string) => void;
  rulesById: Map<string, Rule>;
  index: number;
  total: number;
  /** offset in the virtual list, px (rows have one fixed height: nothing is measured) */
  start: number;
}) {
  const q = queryText(e.query);
  return (
    <li
      aria-setsize={total}
      aria-posinset={index + 1}
      className="virtual-row"
      style={{ transform: `translateY(${start}px)` }}
    >
      <button
        type="button"
        className="request-row"
        aria-current={selected ? 'true' : undefined}
        onClick={() => onSelect(e.id)}
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
});

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
  const [filters, setFiltersState] = useState<RequestFilters>(() => parseFilters(window.location.search));
  // the filters live in the URL, so a filtered view can be shared
  const setFilters = useCallback((f: RequestFilters) => {
    setFiltersState(f);
    navigate(`${window.location.pathname}${filtersToSearch(f)}`, { replace: true, keepScroll: true });
  }, []);
  const [rulesById, setRulesById] = useState<Map<string, Rule>>(new Map());
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const fetchedEndpoints = useRef(new Set<string>());
  const [tick, setTick] = useState(0);
  const select = useCallback((id: string) => {
    setSelected(id);
    requestAnimationFrame(() => {
      const el = document.getElementById('detail-title');
      el?.focus({ preventScroll: true });
      if (window.matchMedia('(max-width: 900px)').matches) el?.scrollIntoView({ block: 'start' });
    });
  }, []);

  const merge = useCallback((incoming: LogEntry[]) => {
    setEntries((old) => mergeNewest(old, incoming));
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
        buffered.push(entry);
        // under a flood, one merge (and one render) in an animation frame at most every 100 ms,
        // not one per request; a lone request shows in the next frame
        if (!pausedRef.current && frame === 0) {
          const wait = Math.max(0, lastMerge + 100 - performance.now());
          frame = window.setTimeout(() => {
            requestAnimationFrame(() => {
              frame = 0;
              lastMerge = performance.now();
              if (!pausedRef.current && buffered.length) merge(buffered.splice(0));
            });
          }, wait);
        }
      },
    });
    let frame = 0;
    let lastMerge = 0;
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
      window.clearTimeout(frame);
    };
  }, [projectId, user, merge, tick]);

  const endpointsById = useMemo(() => new Map((endpoints.data ?? []).map((e) => [e.id, e])), [endpoints.data]);
  const shown = useMemo(() => entries.filter((e) => passesFilters(filters, e)), [entries, filters]);
  // a selected request that a filter hides leaves the detail pane
  const current = shown.find((e) => e.id === selected) ?? null;
  const sessions = useMemo(() => {
    const seen = new Set<string>();
    for (const e of entries) if (e.session) seen.add(e.session);
    return [...seen].sort();
  }, [entries]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const rows = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (i) => shown[i].id,
  });
  // Rules of the endpoints on screen (the rows in view and the selected request) — not of every
  // endpoint the log has seen — to name matched rules and explain failed conditions.
  const visible = rows.getVirtualItems();
  const onScreen = [...visible.map((v) => shown[v.index]?.endpointId), current?.endpointId]
    .filter((x): x is string => !!x)
    .sort()
    .join(' ');
  useEffect(() => {
    for (const id of new Set(onScreen.split(' ').filter(Boolean))) {
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
  }, [onScreen, projectId]);
  const endpointRules = useMemo(() => [...rulesById.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), [rulesById]);
  const filtered = Object.keys(filters).length > 0;

  if (project.apiError?.status === 404) return <NotFoundProject />;
  if (!project.data)
    return project.error ? <ErrorBanner error={project.error} onRetry={project.reload} /> : <Spinner />;

  const oneSession = filters.session && filters.session !== 'none' ? filters.session : undefined;
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
            {filtered ? `${shown.length} of ${entries.length} shown` : `${entries.length} shown`}
          </span>
        </div>
        <div className="row-actions">
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
            }}
            disabled={entries.length === 0}
          >
            Clear view
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger-ghost"
            title={
              oneSession
                ? `Delete the logged requests of session ${oneSession}`
                : 'Delete every logged request of this project'
            }
            onClick={async () => {
              const session = oneSession;
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
      <RequestFilterBar filters={filters} onChange={setFilters} sessions={sessions} rules={endpointRules} />
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
          {/* only the rows in view are rendered (a flood fills 500): the list scrolls on its own */}
          <div className="request-scroll" ref={scrollRef}>
            <ul
              className="request-list"
              aria-labelledby="requests-title"
              style={{ height: shown.length === 0 ? undefined : rows.getTotalSize() }}
            >
              {shown.length === 0 && (
                <li className="muted center request-none">No request in this view passes the filters.</li>
              )}
              {rows.getVirtualItems().map((v) => {
                const e = shown[v.index];
                return (
                  <RequestRow
                    key={e.id}
                    e={e}
                    selected={e.id === selected}
                    onSelect={select}
                    rulesById={rulesById}
                    index={v.index}
                    total={shown.length}
                    start={v.start}
                  />
                );
              })}
            </ul>
          </div>
          <aside className="card detail-pane" aria-label="Request details">
            {current ? (
              <Detail
                e={current}
                endpoint={current.endpointId ? endpointsById.get(current.endpointId) : undefined}
                projectId={projectId}
                rulesById={rulesById}
                base={mockBase(project.data)}
                conversation={current.socketId ? entries.filter((x) => x.socketId === current.socketId) : undefined}
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
