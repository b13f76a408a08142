/** API keys for CI (docs/testing.md): create (the key is shown once, with a copy button), list with last use, revoke. */
import { type FormEvent, useEffect, useState } from 'react';
import { type ApiKey, api, errorMessage } from '../api';
import { useConfirm } from '../components/confirm';
import { useToast } from '../components/toast';
import { CopyLine, EmptyState, ErrorBanner, FieldError, formatDate, Spinner } from '../components/ui';
import { useLoad } from '../hooks';

export function KeysPage() {
  const keys = useLoad((s) => api.keys(s), []);
  const projects = useLoad((s) => api.projects(s), []);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'read' | 'write'>('read');
  const [project, setProject] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const confirm = useConfirm();
  const toast = useToast();
  useEffect(() => {
    document.title = 'API keys · Mockyard';
  }, []);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const made = await api.createKey({ name: name.trim(), scope, ...(project ? { projectIds: [project] } : {}) });
      setShown(made.key);
      setName('');
      keys.reload();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const revoke = async (k: ApiKey) => {
    if (
      !(await confirm({
        title: `Revoke ${k.name}?`,
        message: <p>It stops working at once.</p>,
        confirmLabel: 'Revoke',
        danger: true,
      }))
    )
      return;
    try {
      await api.revokeKey(k.id);
      toast('Key revoked');
      keys.reload();
    } catch (err) {
      toast(`Could not revoke: ${errorMessage(err)}`);
    }
  };
  const projectName = (id: string) => projects.data?.find((p) => p.id === id)?.name ?? id;

  return (
    <div className="page">
      <h1>API keys</h1>
      <p className="muted">
        For CI and test suites: send a key as <code>Authorization: Bearer …</code> wherever a login token works. A read
        key only reads (and counts requests); a key may be limited to one project.
      </p>
      <form className="card inline-form" onSubmit={create} aria-label="New API key">
        <label htmlFor="key-name">Name</label>
        <input id="key-name" value={name} maxLength={100} placeholder="ci" onChange={(e) => setName(e.target.value)} />
        <label htmlFor="key-scope">Scope</label>
        <select id="key-scope" value={scope} onChange={(e) => setScope(e.target.value as 'read' | 'write')}>
          <option value="read">Read</option>
          <option value="write">Write</option>
        </select>
        <label htmlFor="key-project">Project</label>
        <select id="key-project" value={project} onChange={(e) => setProject(e.target.value)}>
          <option value="">All my projects</option>
          {(projects.data ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <button type="submit" className="btn btn-primary btn-small" disabled={!name.trim()}>
          Create key
        </button>
        <FieldError messages={error ? [error] : undefined} />
      </form>
      {shown && (
        <div className="card" role="status">
          <p>Copy the key now: it is not shown again.</p>
          <CopyLine label="New API key" text={shown} what="API key" testId="new-key" />
        </div>
      )}
      <ErrorBanner error={keys.error} onRetry={keys.reload} />
      {keys.loading && !keys.data ? (
        <Spinner label="Loading keys…" />
      ) : (keys.data ?? []).length === 0 ? (
        <EmptyState title="No API keys yet">Create one for your CI.</EmptyState>
      ) : (
        <ul className="collections" aria-label="API keys">
          {(keys.data ?? []).map((k) => (
            <li key={k.id} className="card">
              <strong>{k.name}</strong> <span className="tag">{k.scope}</span>{' '}
              <span className="muted small">
                {k.projectIds ? `project ${k.projectIds.map(projectName).join(', ')}` : 'all projects'} · created{' '}
                {formatDate(k.createdAt)} · last used {k.lastUsedAt ? formatDate(k.lastUsedAt) : 'never'}
                {k.expiresAt ? ` · expires ${formatDate(k.expiresAt)}` : ''}
              </span>{' '}
              <button type="button" className="btn btn-small btn-danger-ghost" onClick={() => void revoke(k)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
