import { type FormEvent, useState } from 'react';
import { api, errorMessage } from '../api';
import { navigate, paths } from '../router';
import type { Project } from '../types';
import { LIMITS } from '../types';
import { DocumentInput, ErrorDetails } from './DocumentInput';
import { FormActions, Modal } from './Modal';
import { useToast } from './toast';

/** The file name the server suggests (Content-Disposition) for an export of `name`. */
export const exportFileName = (name: string) =>
  `${name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60) || 'project'}.mockyard.json`;

function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.className = 'offscreen';
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** "Export": the project as one JSON document (GET /api/projects/:id/export), saved as a file. */
export function ExportDialog({ project, onClose }: { project: Project; onClose: () => void }) {
  const [storage, setStorage] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toast = useToast();
  const fileName = exportFileName(project.name);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const doc = await api.exportProject(project.id, storage);
      download(fileName, `${JSON.stringify(doc, null, 2)}\n`);
      toast(`Downloaded ${fileName}`);
      onClose();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title={`Export “${project.name}”`} onClose={onClose}>
      <form onSubmit={submit} aria-label="Export project">
        <div className="dialog-body">
          <p>
            Downloads <code>{fileName}</code>: every endpoint with its default answer and rules, in evaluation order.
            Import it from the projects list to make a copy here or on another Mockyard.
          </p>
          <p>Sequence positions and mock sessions are not exported.</p>
        </div>
        <div className="field">
          <label className="check">
            <input type="checkbox" checked={storage} onChange={(e) => setStorage(e.target.checked)} />
            Include stored variables (shared state only)
          </label>
        </div>
        {error !== null && <ErrorDetails error={error} />}
        <FormActions onCancel={onClose} label="Download" busyLabel="Exporting…" busy={busy} />
      </form>
    </Modal>
  );
}

function documentName(text: string): string | null {
  try {
    const name = (JSON.parse(text) as { project?: { name?: unknown } })?.project?.name;
    return typeof name === 'string' ? name : null;
  } catch {
    return null;
  }
}

/** "Import project": an export document becomes a new project (POST /api/projects/import). */
export function ImportProjectDialog({ onClose }: { onClose: () => void }) {
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toast = useToast();
  const docName = text.trim() ? documentName(text) : null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) {
      setError(new Error('Choose an exported file (.mockyard.json) or paste its text first.'));
      return;
    }
    try {
      JSON.parse(text);
    } catch (err) {
      setError(new Error(`This is not JSON: ${errorMessage(err)}`));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const p: Project = await api.importProject(text, name.trim() || undefined);
      toast(`Imported project ${p.name}`);
      onClose();
      navigate(paths.project(p.id));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title="Import project" onClose={onClose} wide>
      <form onSubmit={submit} aria-label="Import project document">
        <p className="dialog-body">
          Creates a <strong>new</strong> project from a document made by <em>Export</em>: its endpoints, rules and
          stored variables. Every sequence starts at step 1.
        </p>
        <DocumentInput
          fileLabel="Export file"
          textLabel="Export document"
          accept=".json,application/json"
          value={text}
          onChange={(t) => {
            setText(t);
            setError(null);
          }}
          placeholder='{ "mockyard": 1, "project": { "name": "…" }, "endpoints": [ … ] }'
          hint={docName ? `Project “${docName}”.` : 'JSON, at most 1 MiB.'}
        />
        <div className="field">
          <label htmlFor="import-project-name">New project name (optional)</label>
          <input
            id="import-project-name"
            value={name}
            maxLength={LIMITS.nameLength}
            placeholder={docName ?? 'the name in the document'}
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        {error !== null && <ErrorDetails error={error} />}
        <FormActions onCancel={onClose} label="Import project" busyLabel="Importing…" busy={busy} />
      </form>
    </Modal>
  );
}
