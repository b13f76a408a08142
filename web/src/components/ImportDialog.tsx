import { type FormEvent, useState } from 'react';
import { ApiError, api, documentType } from '../api';
import type { ImportFormat, ImportReport, OnConflict } from '../types';
import { type Archive, ArchiveInput } from './ArchiveInput';
import { DocumentInput, ErrorDetails } from './DocumentInput';
import { FormActions, Modal } from './Modal';
import { MethodBadge } from './ui';

const CONFLICT_LABELS: Record<OnConflict, string> = {
  fail: 'Stop and import nothing',
  skip: 'Keep the existing endpoint (skip)',
  replace: 'Replace it (OpenAPI keeps its rules; other formats bring theirs)',
};

/** The formats the import routes take (docs/interop.md); '' lets the server detect it. */
const FORMATS: [ImportFormat | '', string][] = [
  ['', 'Detect from the document'],
  ['openapi', 'OpenAPI 3.x or Swagger 2.0'],
  ['wiremock', 'WireMock mappings'],
  ['mockoon', 'Mockoon environment'],
  ['postman', 'Postman collection (v2.x)'],
  ['har', 'HAR capture'],
];
const FORMAT_NAMES: Record<ImportReport['format'], string> = {
  openapi: 'OpenAPI',
  swagger: 'Swagger 2.0',
  wiremock: 'WireMock',
  mockoon: 'Mockoon',
  postman: 'Postman',
  har: 'HAR',
  mockyard: 'Mockyard export',
  graphql: 'GraphQL schema',
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
function EndpointList({ title, endpoints }: { title: string; endpoints: ImportReport['created'] }) {
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

function Report({ report }: { report: ImportReport }) {
  const { created, replaced, skipped, warnings } = report;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return (
    <div className="import-report" role="status">
      <p className="banner banner-ok">
        {FORMAT_NAMES[report.format]}: created {plural(created.length, 'endpoint')}, replaced {replaced.length}, skipped{' '}
        {skipped.length}, {plural(warnings.length, 'warning')}.
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
      {warnings.length > 0 && (
        <>
          <h3 className="report-title">Warnings: not translated, or only approximately</h3>
          <ul className="report-list" aria-label="Warnings">
            {warnings.slice(0, 200).map((w, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: warnings have no identity of their own
              <li className="report-item" key={i}>
                <span className="mono small">{w.pointer || '/'}</span>
                <span className="muted small reason">{w.message}</span>
              </li>
            ))}
            {warnings.length > 200 && <li className="muted small">… and {warnings.length - 200} more</li>}
          </ul>
        </>
      )}
    </div>
  );
}

/**
 * "Import": a document (file or pasted, JSON or YAML) of any format the server takes — OpenAPI,
 * Swagger, WireMock, Mockoon, Postman, HAR or a Mockyard export — becomes endpoints and rules of the
 * project, with the report (created, replaced, skipped, warnings).
 */
export function ImportDialog({
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
  const [report, setReport] = useState<ImportReport | null>(null);
  const [format, setFormat] = useState<ImportFormat | ''>('');
  const [archive, setArchive] = useState<Archive | null>(null);

  const run = async (mode: OnConflict) => {
    if (!text.trim() && !archive) {
      setError(new Error('Choose a file, paste a document, or pick a folder or a zip first.'));
      return;
    }
    setBusy(true);
    setError(null);
    setReport(null);
    try {
      const r = archive
        ? await api.importZip(projectId, archive.blob, mode)
        : await api.importDocument(projectId, text, mode, format);
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
    <Modal title="Import mocks" onClose={onClose} wide>
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
                setArchive(null);
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
        <form onSubmit={submit} aria-label="Import a document">
          <p className="dialog-body">
            Bring mocks from an OpenAPI 3.x or Swagger 2.0 description, WireMock mappings, a Mockoon environment, a
            Postman collection with saved examples, a HAR capture or a Mockyard export. Stubs on one route become one
            endpoint with rules; what cannot be translated is listed as a warning. A folder or a zip brings WireMock{' '}
            <code>__files</code> bodies, Mockoon file bodies and an OpenAPI description split in files; nothing outside
            it is read.
          </p>
          <div className="field">
            <label htmlFor="import-format">Format</label>
            <select id="import-format" value={format} onChange={(e) => setFormat(e.target.value as ImportFormat | '')}>
              {FORMATS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <DocumentInput
            fileLabel="File"
            textLabel="Document"
            accept=".json,.yaml,.yml,.har,application/json,application/yaml"
            value={text}
            onChange={(t) => {
              setText(t);
              setError(null);
            }}
            placeholder={EXAMPLE}
            hint={kind ? `Sent as ${kind}. At most 32 MiB.` : 'JSON or YAML, at most 32 MiB.'}
          />
          <ArchiveInput
            value={archive}
            onChange={(a) => {
              setArchive(a);
              setError(null);
            }}
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
                  ? '1 record collides with the project'
                  : `${error.details.length} records collide with the project`}
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
