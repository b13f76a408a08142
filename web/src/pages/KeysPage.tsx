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
  // no project picked: every project of the account
  const [picked, setPicked] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
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
    if (!name.trim()) {
      setError('Give the key a name, for example “ci”.');
      return;
    }
    try {
      const made = await api.createKey({
        name: name.trim(),
        scope,
        ...(picked.length > 0 ? { projectIds: picked } : {}),
        // the end of the chosen day, in the browser's time zone
        ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}),
      });
      setShown(made.key);
      setName('');
      setPicked([]);
      setExpires('');
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
        key only reads (and counts requests); a key may be limited to some projects and given an end date.
      </p>
      <form className="card key-form" onSubmit={create} aria-label="New API key">
        <div className="field">
          <label htmlFor="key-name">Name</label>
          <input
            id="key-name"
            value={name}
            maxLength={100}
            placeholder="ci"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="key-scope">Scope</label>
          <select id="key-scope" value={scope} onChange={(e) => setScope(e.target.value as 'read' | 'write')}>
            <option value="read">Read: read and count requests</option>
            <option value="write">Write: everything a login can do</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="key-expires">Expires (optional)</label>
          <input
            id="key-expires"
            type="date"
            value={expires}
            min={new Date().toISOString().slice(0, 10)}
            onChange={(e) => setExpires(e.target.value)}
          />
        </div>
        <fieldset className="field key-projects">
          <legend>Projects</legend>
          <p className="hint">None checked: every project of your account, new ones included.</p>
          {(projects.data ?? []).map((p) => (
            <label key={p.id} className="check">
              <input
                type="checkbox"
                checked={picked.includes(p.id)}
                onChange={(e) =>
                  setPicked((old) => (e.target.checked ? [...old, p.id] : old.filter((x) => x !== p.id)))
                }
              />
              {p.name}
            </label>
          ))}
        </fieldset>
        <div className="key-actions">
          <button type="submit" className="btn btn-primary">
            Create key
          </button>
        </div>
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
