/** The project's data: its collections and its storage (docs/stateful-mocks.md), per mock session. */
import { useState } from 'react';
import { api } from '../api';
import { CollectionsPanel } from '../components/CollectionsPanel';
import { ProjectHeader } from '../components/ProjectHeader';
import { StoragePanel } from '../components/StoragePanel';
import { ErrorBanner, Spinner } from '../components/ui';
import { useLoad } from '../hooks';
import { NotFoundProject } from './ProjectPage';

export function DataPage({ projectId }: { projectId: string }) {
  const project = useLoad((s) => api.project(projectId, s), [projectId]);
  if (project.apiError?.status === 404) return <NotFoundProject />;
  if (!project.data)
    return project.error ? <ErrorBanner error={project.error} onRetry={project.reload} /> : <Spinner />;
  return (
    <div className="page">
      <ProjectHeader project={project.data} tab="data" onRenamed={(p) => project.setData(() => p)} />
      <CollectionsPanel projectId={projectId} />
      <ProjectStorage projectId={projectId} />
    </div>
  );
}

/** The project's storage, for the shared state or a session typed in (scenarios keep their state here). */
function ProjectStorage({ projectId }: { projectId: string }) {
  const [session, setSession] = useState('');
  const [typed, setTyped] = useState('');
  return (
    <>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setSession(typed.trim());
        }}
      >
        <label htmlFor="project-storage-session">Mock session (empty: shared state)</label>
        <input
          id="project-storage-session"
          value={typed}
          maxLength={200}
          spellCheck={false}
          placeholder="run-1"
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit" className="btn btn-small">
          Show
        </button>
      </form>
      <StoragePanel projectId={projectId} session={session} />
    </>
  );
}
