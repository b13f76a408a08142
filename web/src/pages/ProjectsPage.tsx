import { type FormEvent, useState } from 'react';
import { api, errorMessage } from '../api';
import { RenameProject, useDeleteProject } from '../components/ProjectActions';
import { ImportProjectDialog } from '../components/ProjectTransfer';
import { startSample } from '../components/SampleProject';
import { EmptyState, ErrorBanner, formatDate, Spinner } from '../components/ui';
import { useLoad } from '../hooks';
import { Link, navigate, paths } from '../router';
import { LIMITS } from '../types';

export function ProjectsPage() {
  const projects = useLoad((signal) => api.projects(signal), []);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [createError, setCreateError] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const deleteProject = useDeleteProject();

  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      setCreateError('Give the project a name, for example “Shop front end”.');
      return;
    }
    setBusy(true);
    setCreateError(null);
    try {
      const p = await api.createProject(name.trim());
      setName('');
      navigate(paths.project(p.id));
    } catch (err) {
      setCreateError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const list = projects.data ?? [];
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Projects</h1>
          <p className="muted">Each project has its own mock base URL and request log.</p>
        </div>
        <button type="button" className="btn" onClick={() => setImporting(true)}>
          Import project
        </button>
      </div>
      {importing && <ImportProjectDialog onClose={() => setImporting(false)} />}

      <form className="card create-bar" onSubmit={create} aria-label="New project">
        <div className="field grow">
          <label htmlFor="new-project">Project name</label>
          <input
            id="new-project"
            placeholder="e.g. Shop front end"
            value={name}
            maxLength={LIMITS.nameLength}
            aria-invalid={!!createError}
            aria-describedby={createError ? 'new-project-err' : undefined}
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create project'}
        </button>
        {createError && (
          <p id="new-project-err" className="field-error full" role="alert">
            {createError}
          </p>
        )}
      </form>

      <ErrorBanner error={projects.error} onRetry={projects.reload} />
      {projects.loading && !projects.data ? (
        <Spinner label="Loading projects…" />
      ) : list.length === 0 && !projects.error ? (
        <EmptyState title="No projects yet">
          <p>
            <button type="button" className="btn btn-primary" onClick={() => void startSample()}>
              Start from a sample project
            </button>{' '}
            — a few endpoints with a rule, a sequence, a template and a collection, ready to call.
          </p>
          <p className="muted">Or start from nothing:</p>
          <ol className="steps-list">
            <li>
              Name your first project above and press <strong>Create project</strong>.
            </li>
            <li>
              Add an endpoint, e.g. <code>GET /api/users</code>, with the answer it should give.
            </li>
            <li>
              Call its mock URL from your app or <code>curl</code> and watch requests arrive live.
            </li>
          </ol>
        </EmptyState>
      ) : (
        <ul className="project-list" aria-label="Your projects">
          {list.map((p) => (
            <li key={p.id} className="card project-card">
              {renaming === p.id ? (
                <RenameProject
                  project={p}
                  onCancel={() => setRenaming(null)}
                  onDone={(np) => {
                    setRenaming(null);
                    projects.setData((d) => d?.map((x) => (x.id === np.id ? np : x)));
                  }}
                />
              ) : (
                <>
                  <div className="project-card-main">
                    <Link href={paths.project(p.id)} className="project-name">
                      {p.name}
                    </Link>
                    <span className="muted small">Created {formatDate(p.createdAt)}</span>
                    <code className="small project-path">{p.mockUrl}</code>
                  </div>
                  <div className="row-actions">
                    <Link
                      href={paths.requests(p.id)}
                      className="btn btn-small"
                      aria-label={`Live requests of ${p.name}`}
                    >
                      Live requests
                    </Link>
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-label={`Rename ${p.name}`}
                      onClick={() => setRenaming(p.id)}
                    >
                      Rename
                    </button>
                    <button
                      type="button"
                      className="btn btn-small btn-danger-ghost"
                      aria-label={`Delete ${p.name}`}
                      onClick={async () => {
                        if (await deleteProject(p)) projects.setData((d) => d?.filter((x) => x.id !== p.id));
                      }}
                    >
                      Delete
                    </button>
                  </div>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
