import { useState } from 'react';
import { api, errorMessage } from '../api';
import { useConfirm } from '../components/confirm';
import { EndpointForm, emptyEndpoint } from '../components/EndpointForm';
import { EndpointList } from '../components/EndpointList';
import { ImportDialog } from '../components/ImportDialog';
import { ProjectHeader } from '../components/ProjectHeader';
import { useToast } from '../components/toast';
import { EmptyState, ErrorBanner, Spinner } from '../components/ui';
import { useLoad } from '../hooks';
import { Link, navigate, paths } from '../router';
import type { Endpoint } from '../types';

export function NotFoundProject() {
  return (
    <EmptyState title="Project not found" action={<Link href={paths.projects()}>Back to your projects</Link>}>
      It may have been deleted, or it belongs to another account.
    </EmptyState>
  );
}

export function ProjectPage({ projectId }: { projectId: string }) {
  const project = useLoad((s) => api.project(projectId, s), [projectId]);
  const endpoints = useLoad((s) => api.endpoints(projectId, s), [projectId]);
  const [creating, setCreating] = useState(false);
  // "Duplicate" opens the form prefilled; the copy gets the source's rules too
  const [copyOf, setCopyOf] = useState<Endpoint | null>(null);
  const [search, setSearch] = useState('');
  const [methodFilter, setMethodFilter] = useState('');
  const [importing, setImporting] = useState(false);
  const confirm = useConfirm();
  const toast = useToast();

  if (project.apiError?.status === 404) return <NotFoundProject />;
  if (!project.data) {
    return project.error ? <ErrorBanner error={project.error} onRetry={project.reload} /> : <Spinner />;
  }

  const remove = async (e: Endpoint) => {
    const ok = await confirm({
      title: `Delete ${e.method} ${e.path}?`,
      message: <p>Its rules and stored variables are deleted too. Requests to it will answer 404.</p>,
      confirmLabel: 'Delete endpoint',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.deleteEndpoint(projectId, e.id);
      endpoints.setData((d) => d?.filter((x) => x.id !== e.id));
      toast(`Deleted ${e.method} ${e.path}`);
    } catch (err) {
      toast(`Could not delete: ${errorMessage(err)}`);
    }
  };

  const all = endpoints.data ?? [];
  const needle = search.trim().toLowerCase();
  const list = all.filter(
    (e) => (!methodFilter || e.method === methodFilter) && (!needle || e.path.toLowerCase().includes(needle)),
  );
  const duplicate = (e: Endpoint) => {
    setCopyOf(e);
    setCreating(true);
  };
  return (
    <div className="page">
      <ProjectHeader project={project.data} tab="endpoints" onRenamed={(p) => project.setData(() => p)} />

      <section aria-labelledby="endpoints-title">
        <div className="section-head">
          <h2 id="endpoints-title">Endpoints</h2>
          <div className="row-actions">
            <button type="button" className="btn" onClick={() => setImporting(true)}>
              Import mocks
            </button>
            <select
              className="btn"
              aria-label="Add an LLM API mock"
              value=""
              onChange={(ev) => {
                const preset = ev.target.value as 'openai' | 'anthropic' | '';
                if (!preset) return;
                void api
                  .createPreset(projectId, preset)
                  .then((r) => {
                    toast(`Created ${r.created.map((e) => `${e.method} ${e.path}`).join(', ')}`);
                    endpoints.reload();
                  })
                  .catch((err) => toast(`Could not add the ${preset} mock: ${errorMessage(err)}`));
              }}
            >
              <option value="">Add an LLM API mock…</option>
              <option value="openai">OpenAI (chat completions, responses, models)</option>
              <option value="anthropic">Anthropic (messages)</option>
            </select>
            {!creating && (
              <button
                type="button"
                className="btn btn-primary"
                onClick={() => {
                  setCopyOf(null);
                  setCreating(true);
                }}
              >
                New endpoint
              </button>
            )}
          </div>
        </div>
        {importing && (
          <ImportDialog projectId={projectId} onClose={() => setImporting(false)} onImported={endpoints.reload} />
        )}

        {creating && (
          <div className="card">
            <h3>{copyOf ? `Duplicate ${copyOf.method} ${copyOf.path}` : 'New endpoint'}</h3>
            <EndpointForm
              autoFocus
              key={copyOf?.id ?? 'new'}
              initial={
                copyOf
                  ? {
                      method: copyOf.method,
                      path: `${copyOf.path.replace(/\/+$/, '')}/copy`,
                      statusCode: copyOf.statusCode,
                      responseBody: copyOf.responseBody,
                      contentType: copyOf.contentType,
                    }
                  : { ...emptyEndpoint, path: '/api/' }
              }
              submitLabel={copyOf ? 'Create the copy' : 'Create endpoint'}
              onCancel={() => {
                setCreating(false);
                setCopyOf(null);
              }}
              onSubmit={async (input) => {
                const e = await api.createEndpoint(projectId, input);
                if (copyOf) {
                  for (const r of await api.rules(projectId, copyOf.id)) {
                    const { name, priority, active, conditions, response, actions } = r;
                    await api.createRule(projectId, e.id, { name, priority, active, conditions, response, actions });
                  }
                }
                navigate(paths.endpoint(projectId, e.id));
              }}
            />
          </div>
        )}
        {all.length > 3 && (
          <search className="filter-bar" aria-label="Find endpoints">
            <div className="inline-field">
              <label htmlFor="endpoint-search">Search</label>
              <input
                id="endpoint-search"
                type="search"
                placeholder="path contains…"
                value={search}
                onChange={(e) => setSearch(e.target.value)}
              />
            </div>
            <div className="inline-field">
              <label htmlFor="endpoint-method">Method</label>
              <select id="endpoint-method" value={methodFilter} onChange={(e) => setMethodFilter(e.target.value)}>
                <option value="">Any</option>
                {[...new Set(all.map((e) => e.method))].sort().map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </div>
            <span className="muted small" role="status">
              {list.length} of {all.length} endpoints
            </span>
          </search>
        )}

        <ErrorBanner error={endpoints.error} onRetry={endpoints.reload} />
        {endpoints.loading && !endpoints.data ? (
          <Spinner label="Loading endpoints…" />
        ) : all.length === 0 && !endpoints.error ? (
          !creating && (
            <EmptyState
              title="No endpoints yet"
              action={
                <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
                  Create your first endpoint
                </button>
              }
            >
              An endpoint is a method and a path, such as <code>GET /api/users/:id</code>, with the answer it gives. Add
              rules to it later to vary the answer by header, query or body — or import an OpenAPI document to create
              them all at once.
            </EmptyState>
          )
        ) : (
          <EndpointList list={list} projectId={projectId} onDuplicate={duplicate} onDelete={(e) => void remove(e)} />
        )}
      </section>
    </div>
  );
}
