/**
 * A project's data collections (docs/stateful-mocks.md): create one with a seed, see what a session sees,
 * reset, delete, and create the REST endpoints of a resource bound to it.
 */
import { type FormEvent, useState } from 'react';
import { api, errorMessage } from '../api';
import { useLoad } from '../hooks';
import type { Collection } from '../types';
import { useConfirm } from './confirm';
import { JsonEditor } from './JsonEditor';
import { useToast } from './toast';
import { EmptyState, ErrorBanner, FieldError, Spinner } from './ui';

function NewCollection({ projectId, onDone }: { projectId: string; onDone: () => void }) {
  const [name, setName] = useState('');
  const [seed, setSeed] = useState('[\n  {"id": 1, "name": "Ada"}\n]');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseSeed(seed);
    if (!parsed.ok) {
      setError(parsed.message);
      return;
    }
    const items = parsed.seed;
    setBusy(true);
    setError(null);
    try {
      await api.createCollection(projectId, { name: name.trim(), seed: items });
      setName('');
      onDone();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" onSubmit={submit} aria-label="New collection">
      <div className="field">
        <label htmlFor="collection-name">Name</label>
        <input
          id="collection-name"
          value={name}
          maxLength={64}
          placeholder="users"
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="collection-seed">Seed (JSON array of objects)</label>
        <textarea
          id="collection-seed"
          rows={5}
          spellCheck={false}
          value={seed}
          onChange={(e) => setSeed(e.target.value)}
        />
      </div>
      <FieldError messages={error ? [error] : undefined} />
      <button type="submit" className="btn btn-primary btn-small" disabled={busy || !name.trim()}>
        Create collection
      </button>
    </form>
  );
}

/** The seed as JSON text, checked before it is sent (a JSON array of objects). */
function parseSeed(text: string): { ok: true; seed: unknown[] } | { ok: false; message: string } {
  let v: unknown;
  try {
    v = JSON.parse(text || '[]');
  } catch (e) {
    return { ok: false, message: `Not JSON: ${(e as Error).message}` };
  }
  if (!Array.isArray(v) || !v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x)))
    return { ok: false, message: 'The seed must be a JSON array of objects.' };
  return { ok: true, seed: v };
}

function SeedEditor({ projectId, c, onSaved }: { projectId: string; c: Collection; onSaved: () => void }) {
  const [text, setText] = useState(JSON.stringify(c.seed, null, 2));
  const [error, setError] = useState<string | null>(null);
  const check = parseSeed(text);
  return (
    <form
      className="field"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!check.ok) return;
        try {
          await api.updateCollection(projectId, c.name, { seed: check.seed });
          setError(null);
          onSaved();
        } catch (err) {
          setError(errorMessage(err));
        }
      }}
    >
      <JsonEditor
        label={`Seed of ${c.name} (saving starts every session again from it)`}
        rows={6}
        value={text}
        onChange={setText}
        json
        errors={check.ok ? (error ? [error] : []) : [check.message]}
      />
      <button type="submit" className="btn btn-small" disabled={!check.ok}>
        Save seed
      </button>
    </form>
  );
}

function CollectionRow({ projectId, c, onChanged }: { projectId: string; c: Collection; onChanged: () => void }) {
  const [session, setSession] = useState('');
  const [path, setPath] = useState(`/api/${c.name}`);
  const items = useLoad((s) => api.collectionItems(projectId, c.name, session, s), [projectId, c.name, session]);
  const confirm = useConfirm();
  const toast = useToast();
  const run = async (what: string, act: () => Promise<unknown>) => {
    try {
      await act();
      toast(what);
      items.reload();
      onChanged();
    } catch (err) {
      toast(`Failed: ${errorMessage(err)}`);
    }
  };
  return (
    <li className="card">
      <h3>
        <code>{c.name}</code>{' '}
        <span className="muted small">
          id field {c.idField}, {c.seed.length} seed items
        </span>
      </h3>
      <div className="row-actions">
        <label htmlFor={`session-${c.name}`}>Mock session</label>
        <input
          id={`session-${c.name}`}
          value={session}
          placeholder="session (empty: shared)"
          onChange={(e) => setSession(e.target.value.trim())}
        />
        <button
          type="button"
          className="btn btn-small"
          onClick={() =>
            void run(`${c.name}: ${session ? `session ${session}` : 'every session'} reset to the seed`, () =>
              api.resetCollection(projectId, c.name, session || undefined),
            )
          }
        >
          Reset {session ? `session ${session}` : 'all'}
        </button>
        <button
          type="button"
          className="btn btn-small btn-danger-ghost"
          onClick={async () => {
            if (
              await confirm({
                title: `Delete collection ${c.name}?`,
                message: <p>Its items in every session go with it.</p>,
                confirmLabel: 'Delete',
                danger: true,
              })
            )
              await run(`Collection ${c.name} deleted`, () => api.deleteCollection(projectId, c.name));
          }}
        >
          Delete
        </button>
      </div>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run(`Six REST endpoints of ${c.name} created at ${path}`, () =>
            api.createResources(projectId, c.name, path),
          );
        }}
      >
        <label htmlFor={`resource-${c.name}`}>REST resource path</label>
        <input id={`resource-${c.name}`} value={path} spellCheck={false} onChange={(e) => setPath(e.target.value)} />
        <button type="submit" className="btn btn-small">
          Create the six endpoints
        </button>
      </form>
      <SeedEditor
        projectId={projectId}
        c={c}
        onSaved={() => {
          items.reload();
          onChanged();
        }}
      />
      <div className="section-head">
        <h4 id={`items-${c.name}`}>
          Items {session ? `of session ${session}` : 'of the shared state'} ({items.data?.length ?? '…'})
        </h4>
        <button type="button" className="btn btn-small" onClick={items.reload}>
          Refresh items
        </button>
      </div>
      <ErrorBanner error={items.error} onRetry={items.reload} />
      {items.loading && !items.data ? (
        <Spinner label="Loading items…" />
      ) : (
        <section aria-labelledby={`items-${c.name}`}>
          <pre className="code-block">{JSON.stringify(items.data ?? [], null, 2)}</pre>
        </section>
      )}
    </li>
  );
}

export function CollectionsPanel({ projectId }: { projectId: string }) {
  const collections = useLoad((s) => api.collections(projectId, s), [projectId]);
  const [adding, setAdding] = useState(false);
  return (
    <section aria-labelledby="collections-title" className="card">
      <div className="section-head">
        <h2 id="collections-title">Collections</h2>
        <button type="button" className="btn btn-small" onClick={() => setAdding((a) => !a)}>
          {adding ? 'Cancel' : 'New collection'}
        </button>
      </div>
      <p className="muted small">
        Data a mock can list, create, change and delete — each mock session on its own copy of the seed.
      </p>
      {adding && (
        <NewCollection
          projectId={projectId}
          onDone={() => {
            setAdding(false);
            collections.reload();
          }}
        />
      )}
      <ErrorBanner error={collections.error} onRetry={collections.reload} />
      {collections.loading && !collections.data ? (
        <Spinner label="Loading collections…" />
      ) : (collections.data ?? []).length === 0 ? (
        <EmptyState title="No collections yet">
          Create one, then its REST endpoints, to serve POST-then-GET mocks.
        </EmptyState>
      ) : (
        <ul className="collections">
          {(collections.data ?? []).map((c) => (
            <CollectionRow key={c.name} projectId={projectId} c={c} onChanged={collections.reload} />
          ))}
        </ul>
      )}
    </section>
  );
}
