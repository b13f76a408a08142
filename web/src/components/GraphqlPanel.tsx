/**
 * A GraphQL endpoint's schema editor and query playground (docs/graphql.md): the SDL and bindings,
 * saved with their validation; a query sent to the mock as an app would, with its answer and the
 * rule that gave it.
 */
import { type FormEvent, useId, useState } from 'react';
import { ApiError, api, errorMessage } from '../api';
import type { Endpoint } from '../types';

export function GraphqlPanel({
  projectId,
  endpoint,
  onSaved,
}: {
  projectId: string;
  endpoint: Endpoint;
  onSaved: (e: Endpoint) => void;
}) {
  const id = useId();
  const gql = endpoint.graphql;
  const [schema, setSchema] = useState(gql?.schema ?? '');
  const [bindings, setBindings] = useState(gql?.bindings ? JSON.stringify(gql.bindings, null, 2) : '');
  const [saveNote, setSaveNote] = useState<{ ok: boolean; text: string } | null>(null);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = bindings.trim() === '' ? undefined : JSON.parse(bindings);
    } catch {
      setSaveNote({
        ok: false,
        text: 'Bindings must be a JSON object ("Query.users": {"collection": "users", "operation": "list"}).',
      });
      return;
    }
    try {
      const u = await api.updateEndpoint(projectId, endpoint.id, {
        graphql: { schema, ...(parsed ? { bindings: parsed } : {}) } as Endpoint['graphql'],
      });
      onSaved(u);
      setSaveNote({ ok: true, text: 'Saved.' });
    } catch (err) {
      setSaveNote({
        ok: false,
        text:
          err instanceof ApiError && err.details.length > 0
            ? err.details.map((d) => d.message).join(' ')
            : errorMessage(err),
      });
    }
  };
  return (
    <section className="card graphql-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>GraphQL</h2>
      <form onSubmit={save} aria-label="GraphQL schema">
        <div className="field">
          <label htmlFor={`${id}-schema`}>Schema (SDL)</label>
          <textarea
            id={`${id}-schema`}
            className="code"
            rows={10}
            spellCheck={false}
            value={schema}
            onChange={(e) => setSchema(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-bindings`}>Bindings to collections (JSON, optional)</label>
          <textarea
            id={`${id}-bindings`}
            className="code"
            rows={4}
            spellCheck={false}
            value={bindings}
            placeholder='{"Query.users": {"collection": "users", "operation": "list"}}'
            onChange={(e) => setBindings(e.target.value)}
          />
        </div>
        {saveNote && (
          <p className={`hint ${saveNote.ok ? 'hint-ok' : 'hint-bad'}`} role={saveNote.ok ? 'status' : 'alert'}>
            {saveNote.text}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="btn btn-primary">
            Save schema
          </button>
        </div>
      </form>
      <Playground projectId={projectId} path={endpoint.path} />
    </section>
  );
}

function Playground({ projectId, path }: { projectId: string; path: string }) {
  const id = useId();
  const [query, setQuery] = useState('{\n  __typename\n}');
  const [variables, setVariables] = useState('');
  const [session, setSession] = useState('');
  const [answer, setAnswer] = useState<string | null>(null);
  const [trace, setTrace] = useState<string | null>(null);
  const run = async (e: FormEvent) => {
    e.preventDefault();
    let vars: unknown;
    try {
      vars = variables.trim() === '' ? undefined : JSON.parse(variables);
    } catch {
      setAnswer('Variables must be JSON.');
      return;
    }
    const marker = `playground-${Date.now()}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-mockyard-playground': marker };
    if (session) headers['x-mockyard-session'] = session;
    const res = await fetch(`/m/${encodeURIComponent(projectId)}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables: vars }),
    });
    const text = await res.text();
    try {
      setAnswer(JSON.stringify(JSON.parse(text), null, 2));
    } catch {
      setAnswer(text);
    }
    const found = await api.findRequests(projectId, { headers: { 'x-mockyard-playground': marker } }).catch(() => []);
    const entry = found[0];
    setTrace(
      entry
        ? `${res.status} · ${entry.ruleId ? `answered by rule ${entry.rules.find((r) => r.ruleId === entry.ruleId)?.name ?? entry.ruleId}` : 'generated from the schema (no rule answered)'}`
        : `${res.status}`,
    );
  };
  return (
    <form onSubmit={run} aria-label="Query playground">
      <h3>Playground</h3>
      <div className="field">
        <label htmlFor={`${id}-query`}>Query</label>
        <textarea
          id={`${id}-query`}
          className="code"
          rows={6}
          spellCheck={false}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      </div>
      <div className="field-row">
        <div className="field grow">
          <label htmlFor={`${id}-vars`}>Variables (JSON)</label>
          <input
            id={`${id}-vars`}
            value={variables}
            onChange={(e) => setVariables(e.target.value)}
            spellCheck={false}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-session`}>Mock session</label>
          <input id={`${id}-session`} value={session} onChange={(e) => setSession(e.target.value)} />
        </div>
      </div>
      <div className="form-actions">
        <button type="submit" className="btn btn-primary">
          Run query
        </button>
      </div>
      {trace && (
        <p className="hint" role="status">
          {trace}
        </p>
      )}
      {answer !== null && (
        <figure className="graphql-answer">
          <figcaption className="muted small">Answer</figcaption>
          <pre className="code">{answer}</pre>
        </figure>
      )}
    </form>
  );
}
