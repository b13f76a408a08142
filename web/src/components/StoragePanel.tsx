import { useState } from 'react';
import { api, errorMessage } from '../api';
import { useLoad } from '../hooks';
import { useConfirm } from './confirm';
import { useToast } from './toast';
import { ErrorBanner, Spinner } from './ui';

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * Stored variables of the shared state (session '') or of one mock session: an endpoint's, or —
 * without `endpointId` — the project's (store_variable with scope project, {{project.NAME}}).
 */
export function StoragePanel({
  projectId,
  endpointId,
  session,
}: {
  projectId: string;
  endpointId?: string;
  session: string;
}) {
  const storage = useLoad(
    (s) => (endpointId ? api.storage(projectId, endpointId, session, s) : api.projectStorage(projectId, session, s)),
    [projectId, endpointId, session],
  );
  const what = endpointId ? 'endpoint' : 'project';
  const [busy, setBusy] = useState(false);
  const confirm = useConfirm();
  const toast = useToast();
  const entries = Object.entries(storage.data ?? {});

  const clear = async () => {
    const ok = await confirm({
      title: 'Clear stored variables?',
      message: session ? (
        <p>
          The {entries.length} stored values of session <code>{session}</code> are removed. Other sessions and the
          shared state keep theirs.
        </p>
      ) : (
        <p>
          The {entries.length} shared stored values of this {what} are removed, and those of every mock session.
        </p>
      ),
      confirmLabel: 'Clear storage',
      danger: true,
    });
    if (!ok) return;
    setBusy(true);
    try {
      if (endpointId) await api.clearStorage(projectId, endpointId, session);
      else await api.clearProjectStorage(projectId, session);
      storage.setData(() => ({}));
      toast('Storage cleared');
    } catch (err) {
      toast(`Could not clear: ${errorMessage(err)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={`storage-title-${what}`} className="card">
      <div className="section-head">
        <div>
          <h2 id={`storage-title-${what}`}>
            {endpointId ? 'Storage' : 'Project storage'}{' '}
            {session ? <span className="tag tag-session">session {session}</span> : <span className="tag">shared</span>}
          </h2>
          <p className="muted small">
            Values kept by <em>Store variable</em> actions
            {endpointId ? '' : ' with scope project, shared by every endpoint'}, read as{' '}
            <code>{endpointId ? '{{endpoint.NAME}}' : '{{project.NAME}}'}</code> and by conditions on{' '}
            {endpointId ? 'endpoint' : 'project'} state
            {session ? ` — for requests of session ${session}.` : ' — for requests without a session.'}
          </p>
        </div>
        <div className="row-actions">
          <button type="button" className="btn btn-small" onClick={storage.reload} disabled={storage.loading}>
            Refresh storage
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger-ghost"
            onClick={() => void clear()}
            disabled={busy || entries.length === 0}
            title={session ? `Clear the storage of session ${session}` : 'Clear the shared storage and every session’s'}
          >
            Clear storage
          </button>
        </div>
      </div>
      <ErrorBanner error={storage.error} onRetry={storage.reload} />
      {storage.loading && !storage.data ? (
        <Spinner label="Loading storage…" />
      ) : entries.length === 0 ? (
        <p className="muted">Nothing stored yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="kv-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {entries.map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">
                    <code>{k}</code>
                  </th>
                  <td>
                    <code className="wrap">{show(v)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
