import { useEffect } from 'react';
import { api } from '../api';
import { useLoad } from '../hooks';
import { CopyLine, formatTime } from './ui';

/**
 * Which state the endpoint page shows: the shared one (requests without `X-Mockyard-Session`) or one
 * mock session's. Rules' sequence positions, "Reset sequence" and the storage panel follow it.
 */
export function SessionPicker({
  projectId,
  endpointId,
  session,
  onChange,
  sessionCurl,
  seedCurl,
}: {
  projectId: string;
  endpointId: string;
  session: string;
  onChange: (session: string) => void;
  sessionCurl: string;
  seedCurl: string;
}) {
  const sessions = useLoad((s) => api.sessions(projectId, endpointId, s), [projectId, endpointId]);
  const { setData } = sessions;

  // New sessions appear with mock traffic: refresh quietly while the page is visible.
  useEffect(() => {
    const t = window.setInterval(() => {
      if (document.visibilityState !== 'visible') return;
      api
        .sessions(projectId, endpointId)
        .then((list) => setData(() => list))
        .catch(() => {});
    }, 4000);
    return () => window.clearInterval(t);
  }, [projectId, endpointId, setData]);

  const list = sessions.data ?? [];
  // A session that was forgotten (idle) or not yet listed stays selectable while it is selected.
  const options = session && !list.some((s) => s.session === session) ? [{ session, lastSeen: '' }, ...list] : list;

  return (
    <section className="card session-card" aria-labelledby="sessions-title">
      <div className="session-head">
        <div>
          <h2 id="sessions-title">Mock sessions</h2>
          <p className="muted small">
            Requests with an <code>X-Mockyard-Session</code> header get their own sequence positions and stored
            variables, e.g. one per test run. Requests without it share the default state.
          </p>
        </div>
        <div className="session-pick">
          <label htmlFor="mock-session">Show state of</label>
          <select
            id="mock-session"
            value={session}
            aria-describedby="mock-session-hint"
            onChange={(e) => onChange(e.target.value)}
          >
            <option value="">Shared (no session)</option>
            {options.map((s) => (
              <option key={s.session} value={s.session}>
                {s.session}
                {s.lastSeen ? ` · seen ${formatTime(s.lastSeen)}` : ''}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="btn btn-small"
            onClick={sessions.reload}
            disabled={sessions.loading}
            aria-label="Refresh sessions"
          >
            ↻
          </button>
        </div>
      </div>
      <p id="mock-session-hint" className="hint">
        {sessions.error
          ? `Sessions could not be loaded: ${sessions.error}`
          : list.length === 0
            ? 'No session has been seen on this endpoint yet (sessions idle for 24 hours are forgotten).'
            : `${list.length} session${list.length === 1 ? '' : 's'} seen, most recent first.`}
      </p>
      <CopyLine label="Session" text={sessionCurl} what="curl command with a session" />
      <CopyLine label="Seed" text={seedCurl} what="curl command with a seed" />
      <p className="hint">
        <code>X-Mockyard-Seed</code> makes a request's randomness repeatable: <em>random</em> conditions,{' '}
        <code>{'{{$uuid}}'}</code>, <code>{'{{$randomInt 1 6}}'}</code> and delay jitter give the same result for the
        same seed.
      </p>
    </section>
  );
}
