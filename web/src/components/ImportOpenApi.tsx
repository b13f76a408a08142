import { type FormEvent, useState } from 'react';
import { ApiError, api, documentType } from '../api';
import type { OnConflict, OpenApiImportReport } from '../types';
import { DocumentInput, ErrorDetails } from './DocumentInput';
import { FormActions, Modal } from './Modal';
import { MethodBadge } from './ui';

const CONFLICT_LABELS: Record<OnConflict, string> = {
  fail: 'Stop and import nothing',
  skip: 'Keep the existing endpoint (skip)',
  replace: 'Replace its default answer (keeps its rules)',
};

const EXAMPLE = `openapi: 3.0.3
info: { title: Shop, version: "1" }
paths:
  /api/customers/{id}:
    get:
      responses:
        "200":
          content:
            application/json:
              example: { id: 7, name: Ada }`;

/** The created or replaced endpoints of an import report (nothing when there are none). */
function EndpointList({ title, endpoints }: { title: string; endpoints: OpenApiImportReport['created'] }) {
  if (endpoints.length === 0) return null;
  return (
    <>
      <h3 className="report-title">{title}</h3>
      <ul className="report-list" aria-label={`${title} endpoints`}>
        {endpoints.map((e) => (
          <li className="report-item" key={e.id}>
            <MethodBadge method={e.method} /> <span className="mono">{e.path}</span>
            <span className="muted small">{e.statusCode}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

function Report({ report }: { report: OpenApiImportReport }) {
  const { created, replaced, skipped } = report;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return (
    <div className="import-report" role="status">
      <p className="banner banner-ok">
        Created {plural(created.length, 'endpoint')}, replaced {replaced.length}, skipped {skipped.length}.
      </p>
      <EndpointList title="Created" endpoints={created} />
      <EndpointList title="Replaced" endpoints={replaced} />
      {skipped.length > 0 && (
        <>
          <h3 className="report-title">Skipped</h3>
          <ul className="report-list" aria-label="Skipped operations">
            {skipped.map((s) => (
              <li className="report-item" key={`${s.method} ${s.path}`}>
                <MethodBadge method={s.method} /> <span className="mono">{s.path}</span>
                <span className="muted small reason">{s.reason}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** "Import OpenAPI": a document (file or pasted, JSON or YAML) becomes endpoints of the project. */
export function ImportOpenApiDialog({
  projectId,
  onClose,
  onImported,
}: {
  projectId: string;
  onClose: () => void;
  onImported: () => void;
}) {
  const [text, setText] = useState('');
  const [onConflict, setOnConflict] = useState<OnConflict>('fail');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [report, setReport] = useState<OpenApiImportReport | null>(null);

  const run = async (mode: OnConflict) => {
    if (!text.trim()) {
      setError(new Error('Choose a file or paste an OpenAPI document first.'));
      return;
    }
    setBusy(true);
    setError(null);
    setReport(null);
    try {
      const r = await api.importOpenApi(projectId, text, mode);
      setReport(r);
      setOnConflict(mode);
      if (r.created.length + r.replaced.length > 0) onImported();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(onConflict);
  };
  const conflict = error instanceof ApiError && error.status === 409;
  const kind = text.trim() ? (documentType(text) === 'application/json' ? 'JSON' : 'YAML') : null;

  return (
    <Modal title="Import OpenAPI" onClose={onClose} wide>
      {report ? (
        <>
          <Report report={report} />
          <div className="dialog-actions">
            <button
              type="button"
              className="btn"
              onClick={() => {
                setReport(null);
                setText('');
              }}
            >
              Import another
            </button>
            <button type="button" className="btn btn-primary" onClick={onClose}>
              Done
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={submit} aria-label="Import OpenAPI document">
          <p className="dialog-body">
            Each operation of an OpenAPI 3.0 or 3.1 document becomes an endpoint: <code>{'{id}'}</code> becomes{' '}
            <code>:id</code>, and the default answer comes from the first 2xx response (its example, or a value made
            from its schema). External <code>$ref</code>s are not followed.
          </p>
          <DocumentInput
            fileLabel="OpenAPI file"
            textLabel="OpenAPI document"
            accept=".json,.yaml,.yml,application/json,application/yaml"
            value={text}
            onChange={(t) => {
              setText(t);
              setError(null);
            }}
            placeholder={EXAMPLE}
            hint={kind ? `Sent as ${kind}. At most 1 MiB.` : 'JSON or YAML, at most 1 MiB.'}
          />
          <div className="field">
            <label htmlFor="openapi-conflict">When an endpoint already answers the route</label>
            <select
              id="openapi-conflict"
              value={onConflict}
              onChange={(e) => setOnConflict(e.target.value as OnConflict)}
            >
              {(['fail', 'skip', 'replace'] as const).map((m) => (
                <option key={m} value={m}>
                  {CONFLICT_LABELS[m]}
                </option>
              ))}
            </select>
          </div>
          {conflict && error instanceof ApiError ? (
            <div className="banner banner-warn banner-block" role="alert">
              <p>
                {error.details.length === 1
                  ? '1 operation collides with an existing endpoint'
                  : `${error.details.length} operations collide with existing endpoints`}
                : nothing was imported.
              </p>
              <ul className="detail-list">
                {error.details.slice(0, 20).map((d) => (
                  <li key={d.path}>{d.message}</li>
                ))}
                {error.details.length > 20 && <li>… and {error.details.length - 20} more</li>}
              </ul>
            </div>
          ) : (
            error !== null && <ErrorDetails error={error} />
          )}
          {conflict && (
            <div className="conflict-choice">
              <p>Import again, and for those routes:</p>
              <div className="row-actions">
                <button type="button" className="btn btn-small" disabled={busy} onClick={() => void run('skip')}>
                  Skip existing
                </button>
                <button type="button" className="btn btn-small" disabled={busy} onClick={() => void run('replace')}>
                  Replace existing
                </button>
              </div>
            </div>
          )}
          <FormActions onCancel={onClose} label="Import" busyLabel="Importing…" busy={busy} />
        </form>
      )}
    </Modal>
  );
}
