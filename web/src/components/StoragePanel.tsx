import { useState } from 'react';
import { api, errorMessage } from '../api';
import { useLoad } from '../hooks';
import { useConfirm } from './confirm';
import { useToast } from './toast';
import { ErrorBanner, Spinner } from './ui';

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

export function StoragePanel({ projectId, endpointId }: { projectId: string; endpointId: string }) {
  const storage = useLoad((s) => api.storage(projectId, endpointId, s), [projectId, endpointId]);
  const [busy, setBusy] = useState(false);
  const confirm = useConfirm();
  const toast = useToast();
  const entries = Object.entries(storage.data ?? {});

  const clear = async () => {
    const ok = await confirm({
      title: 'Clear stored variables?',
      message: <p>All {entries.length} stored values of this endpoint are removed.</p>,
      confirmLabel: 'Clear storage',
      danger: true,
    });
    if (!ok) return;
    setBusy(true);
    try {
      await api.clearStorage(projectId, endpointId);
      storage.setData(() => ({}));
      toast('Storage cleared');
    } catch (err) {
      toast(`Could not clear: ${errorMessage(err)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="storage-title" className="card">
      <div className="section-head">
        <div>
          <h2 id="storage-title">Storage</h2>
          <p className="muted small">
            Values kept by <em>Store variable</em> actions, read as <code>{'{{endpoint.NAME}}'}</code>.
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
