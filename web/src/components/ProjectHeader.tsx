import { useEffect, useState } from 'react';
import { Link, navigate, paths } from '../router';
import type { Project } from '../types';
import { RenameProject, useDeleteProject } from './ProjectActions';
import { ProjectConfig } from './ProjectConfig';
import { ProjectFallback } from './ProjectFallback';
import { ExportDialog } from './ProjectTransfer';
import { TryIt } from './SampleProject';
import { CopyLine } from './ui';

/**
 * The base of a project's mock URLs: its own mock host when the server has a mock domain
 * (`mockUrl` is then absolute), else `<this origin>` + `mockUrl` (`/m/<slug>`; `/m/<id>` works too).
 */
export const mockBase = (project: Pick<Project, 'id'> & { mockUrl?: string }) =>
  project.mockUrl && /^https?:\/\//.test(project.mockUrl)
    ? project.mockUrl
    : project.mockUrl?.startsWith('/m/')
      ? `${window.location.origin}${project.mockUrl}`
      : `${window.location.origin}/m/${encodeURIComponent(project.id)}`;

/** Breadcrumb, title, rename/delete and the Endpoints / Live requests tabs of a project. */
export function ProjectHeader({
  project,
  tab,
  onRenamed,
}: {
  project: Project;
  tab: 'endpoints' | 'requests' | 'data' | 'contract';
  onRenamed: (p: Project) => void;
}) {
  const [renaming, setRenaming] = useState(false);
  const [exporting, setExporting] = useState(false);
  const deleteProject = useDeleteProject();
  useEffect(() => {
    const title = { endpoints: 'Endpoints', requests: 'Live requests', data: 'Data', contract: 'Contract' }[tab];
    document.title = `${project.name} · ${title} · Mockyard`;
  }, [project.name, tab]);
  const base = mockBase(project);
  return (
    <div className="project-head">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.projects()}>Projects</Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">{project.name}</span>
      </nav>
      {renaming ? (
        <RenameProject
          project={project}
          onCancel={() => setRenaming(false)}
          onDone={(p) => {
            setRenaming(false);
            onRenamed(p);
          }}
        />
      ) : (
        <div className="page-head">
          <h1>{project.name}</h1>
          <div className="row-actions">
            <button type="button" className="btn btn-small" onClick={() => setExporting(true)}>
              Export
            </button>
            <button type="button" className="btn btn-small" onClick={() => setRenaming(true)}>
              Rename project
            </button>
            <button
              type="button"
              className="btn btn-small btn-danger-ghost"
              onClick={async () => {
                if (await deleteProject(project)) navigate(paths.projects());
              }}
            >
              Delete project
            </button>
          </div>
        </div>
      )}
      <CopyLine label="Mock base URL" text={base} what="mock base URL" testId="mock-base" />
      <TryIt base={base} />
      <details className="fallback-panel">
        <summary>
          Fallback and recording
          {project.recording ? (
            <span className="badge badge-warn"> recording</span>
          ) : (
            project.fallbackUrl && <span className="muted small"> → {project.fallbackUrl}</span>
          )}
        </summary>
        <ProjectFallback project={project} onSaved={onRenamed} />
      </details>
      <details className="fallback-panel">
        <summary>
          Config variables
          <span className="muted small"> {Object.keys(project.config ?? {}).length} set</span>
        </summary>
        <ProjectConfig project={project} onSaved={onRenamed} />
      </details>
      {exporting && <ExportDialog project={project} onClose={() => setExporting(false)} />}
      <nav className="tabs" aria-label="Project sections">
        <Link href={paths.project(project.id)} aria-current={tab === 'endpoints' ? 'page' : undefined}>
          Endpoints
        </Link>
        <Link href={paths.requests(project.id)} aria-current={tab === 'requests' ? 'page' : undefined}>
          Live requests
        </Link>
        <Link href={paths.data(project.id)} aria-current={tab === 'data' ? 'page' : undefined}>
          Data
        </Link>
        <Link href={paths.contract(project.id)} aria-current={tab === 'contract' ? 'page' : undefined}>
          Contract
        </Link>
      </nav>
    </div>
  );
}
