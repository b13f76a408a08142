import { useEffect, useMemo, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import { useConfirm } from '../components/confirm';
import { EndpointForm } from '../components/EndpointForm';
import { EndpointValidation } from '../components/EndpointValidation';
import { GraphqlPanel } from '../components/GraphqlPanel';
import { preloadCodeEditor, TemplateHintsContext } from '../components/JsonEditor';
import { mockBase } from '../components/ProjectHeader';
import { SessionPicker } from '../components/SessionPicker';
import { SocketConsole } from '../components/SocketConsole';
import { StoragePanel } from '../components/StoragePanel';
import { samplePath, TestRequest } from '../components/TestRequest';
import { pathParams } from '../components/template-complete';
import { useToast } from '../components/toast';
import { CopyLine, EmptyState, ErrorBanner, MethodBadge, Spinner } from '../components/ui';
import { useLoad } from '../hooks';
import { Link, navigate, paths } from '../router';
import { RulesPanel } from '../rules/RulesPanel';
import type { Endpoint } from '../types';

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function curlLine(
  e: Pick<Endpoint, 'method' | 'path' | 'contentType'>,
  url: string,
  headers: string[] = [],
): string {
  const parts = ['curl', '-i'];
  if (e.method === 'HEAD') parts.push('-I');
  else if (e.method !== 'GET') parts.push('-X', e.method);
  parts.push(shq(url));
  for (const h of headers) parts.push('-H', shq(h));
  if (['POST', 'PUT', 'PATCH'].includes(e.method)) {
    parts.push('-H', shq('content-type: application/json'), '-d', shq('{}'));
  }
  return parts.join(' ');
}

export function EndpointPage({ projectId, endpointId }: { projectId: string; endpointId: string }) {
  const project = useLoad((s) => api.project(projectId, s), [projectId]);
  const endpoint = useLoad((s) => api.endpoint(projectId, endpointId, s), [projectId, endpointId]);
  const collections = useLoad((s) => api.collections(projectId, s), [projectId]);
  // the helper table of the server, for the editors' completion
  const helpers = useLoad((s) => api.templateHelpers(s), []).data;
  useEffect(preloadCodeEditor, []);
  // a new page's heading takes the focus once it is there (after "Create endpoint", a link, …)
  const headingRef = useRef<HTMLHeadingElement>(null);
  const focusedFor = useRef<string | null>(null);
  useEffect(() => {
    if (!endpoint.data || focusedFor.current === endpointId) return;
    focusedFor.current = endpointId;
    headingRef.current?.focus();
  });
  const confirm = useConfirm();
  const toast = useToast();
  // '' is the shared state (requests without X-Mockyard-Session).
  const [session, setSession] = useState('');
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new endpoint starts on the shared state
  useEffect(() => setSession(''), [projectId, endpointId]);
  const e = endpoint.data;
  const hints = useMemo(
    () => ({
      params: pathParams(e?.path ?? ''),
      vars: [],
      collections: (collections.data ?? []).map((c) => c.name),
      helpers: helpers ?? undefined,
      projectId,
      method: e?.method,
      path: e ? samplePath(e.path) : undefined,
    }),
    [e, collections.data, helpers, projectId],
  );

  useEffect(() => {
    if (e) document.title = `${e.method} ${e.path} · ${project.data?.name ?? 'Project'} · Mockyard`;
  }, [e, project.data?.name]);

  if (endpoint.apiError?.status === 404) {
    return (
      <EmptyState title="Endpoint not found" action={<Link href={paths.project(projectId)}>Back to the project</Link>}>
        It may have been deleted.
      </EmptyState>
    );
  }
  if (!e) return endpoint.error ? <ErrorBanner error={endpoint.error} onRetry={endpoint.reload} /> : <Spinner />;

  const base = mockBase(project.data ?? { id: projectId });
  // copied URLs carry sample values (`:id` → 1): pasted into a terminal they answer at once
  const url = `${base}${samplePath(e.path)}`;
  const curl = curlLine(e, url);

  const remove = async () => {
    const ok = await confirm({
      title: `Delete ${e.method} ${e.path}?`,
      message: <p>Its rules and stored variables are deleted too. Requests to it will answer 404.</p>,
      confirmLabel: 'Delete endpoint',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.deleteEndpoint(projectId, e.id);
      toast(`Deleted ${e.method} ${e.path}`);
      navigate(paths.project(projectId));
    } catch (err) {
      toast(`Could not delete: ${errorMessage(err)}`);
    }
  };

  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.projects()}>Projects</Link>
        <span aria-hidden="true">/</span>
        <Link href={paths.project(projectId)}>{project.data?.name ?? 'Project'}</Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">
          {e.method} {e.path}
        </span>
      </nav>
      <div className="page-head">
        <h1 className="endpoint-title" tabIndex={-1} ref={headingRef}>
          <MethodBadge method={e.method} />
          <span className="mono">{e.path}</span>
        </h1>
        <div className="row-actions">
          <Link href={`${paths.requests(projectId)}?endpoint=${encodeURIComponent(e.id)}`} className="btn btn-small">
            Live requests
          </Link>
          <button type="button" className="btn btn-small btn-danger-ghost" onClick={() => void remove()}>
            Delete endpoint
          </button>
        </div>
      </div>

      <div className="card url-card">
        <CopyLine label="Mock URL" text={url} what="mock URL" testId="mock-url" />
        <CopyLine label="curl" text={curl} what="curl command" />
        {e.path.includes(':') || e.path.includes('*') ? (
          <p className="hint">
            Sample values stand in for the <code>:name</code> and <code>*</code> parts of <code>{e.path}</code>.
          </p>
        ) : null}
      </div>
      {e.method === 'WS' ? (
        <SocketConsole projectId={projectId} endpoint={e} />
      ) : (
        <TestRequest endpoint={e} base={base} />
      )}
      {e.graphql && (
        <GraphqlPanel
          projectId={projectId}
          endpoint={e}
          onSaved={(u) => endpoint.setData((old) => ({ ...u, rules: old?.rules }))}
        />
      )}
      <EndpointValidation
        projectId={projectId}
        endpoint={e}
        onSaved={(u) => endpoint.setData((old) => ({ ...u, rules: old?.rules }))}
      />

      <TemplateHintsContext.Provider value={hints}>
        <details className="card default-response" open>
          <summary>
            <h2>Default response</h2>
            <span className="muted small">
              {e.statusCode} · {e.contentType} · used when no rule answers
            </span>
          </summary>
          <EndpointForm
            key={e.updatedAt}
            initial={e}
            submitLabel="Save endpoint"
            requireChange
            onSubmit={async (input) => {
              const u = await api.updateEndpoint(projectId, e.id, input);
              endpoint.setData((old) => ({ ...u, rules: old?.rules }));
              toast('Endpoint saved');
            }}
          />
        </details>

        <RulesPanel projectId={projectId} endpointId={e.id} contentType={e.contentType} session={session} />

        <SessionPicker
          projectId={projectId}
          endpointId={e.id}
          session={session}
          onChange={setSession}
          sessionCurl={curlLine(e, url, [`X-Mockyard-Session: ${session || 'run-1'}`])}
          seedCurl={curlLine(e, url, ['X-Mockyard-Seed: 42'])}
        />
      </TemplateHintsContext.Provider>

      <StoragePanel projectId={projectId} endpointId={e.id} session={session} />
    </div>
  );
}
