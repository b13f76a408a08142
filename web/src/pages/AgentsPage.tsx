/**
 * Use with agents (docs/agents.md): the service's /mcp URL, and a ready configuration for an agent
 * client with a freshly created read or write API key (shown once).
 */
import { type FormEvent, useEffect, useState } from 'react';
import { api, errorMessage } from '../api';
import { FieldError } from '../components/ui';

export function AgentsPage() {
  const [scope, setScope] = useState<'read' | 'write'>('read');
  const [key, setKey] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Use with agents · Mockyard';
  }, []);
  const url = `${window.location.origin}/mcp`;
  const shownKey = key ?? 'myk_… (create a key below)';
  const http = JSON.stringify(
    { mcpServers: { mockyard: { type: 'http', url, headers: { Authorization: `Bearer ${shownKey}` } } } },
    null,
    2,
  );
  const stdio = JSON.stringify(
    {
      mcpServers: {
        mockyard: {
          command: 'npx',
          args: ['mockyard', 'mcp'],
          env: { MOCKYARD_URL: window.location.origin, MOCKYARD_TOKEN: shownKey },
        },
      },
    },
    null,
    2,
  );
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const made = await api.createKey({ name: `agent (${scope})`, scope });
      setKey(made.key);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const copy = (text: string) => void navigator.clipboard?.writeText(text).catch(() => {});
  return (
    <div className="page">
      <h1>Use with agents</h1>
      <p className="muted">
        Coding agents build, drive and debug your mocks through the Model Context Protocol: the same operations as the
        API, and <code>explain_request</code>, which says in words why a request got its answer. See{' '}
        <code>docs/agents.md</code> for every tool.
      </p>
      <div className="card">
        <div className="url-line">
          <span className="url-label">MCP endpoint</span>
          <code className="url" data-testid="mcp-url">
            {url}
          </code>
        </div>
      </div>
      <form className="card inline-form" onSubmit={create} aria-label="Create an agent key">
        <label htmlFor="agent-scope">Key scope</label>
        <select id="agent-scope" value={scope} onChange={(e) => setScope(e.target.value as 'read' | 'write')}>
          <option value="read">Read: list, find, explain</option>
          <option value="write">Write: build and change mocks too</option>
        </select>
        <button type="submit" className="btn btn-primary btn-small" disabled={busy}>
          Create key and snippet
        </button>
        <FieldError messages={error ? [error] : undefined} />
      </form>
      {key && (
        <p role="status" className="card">
          A {scope} key was created for this snippet. Copy it now: it is not shown again (revoke it under API keys).
        </p>
      )}
      <section className="card" aria-labelledby="agent-http">
        <h2 id="agent-http">Over HTTP</h2>
        <pre className="code-block" data-testid="mcp-http-snippet">
          {http}
        </pre>
        <button type="button" className="btn btn-small" onClick={() => copy(http)}>
          Copy
        </button>
      </section>
      <section className="card" aria-labelledby="agent-stdio">
        <h2 id="agent-stdio">Over stdio (npx mockyard mcp)</h2>
        <pre className="code-block">{stdio}</pre>
        <button type="button" className="btn btn-small" onClick={() => copy(stdio)}>
          Copy
        </button>
      </section>
    </div>
  );
}
