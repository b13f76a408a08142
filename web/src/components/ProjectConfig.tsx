import { type FormEvent, useState } from 'react';
import { ApiError, api, errorMessage } from '../api';
import type { Project } from '../types';
import { fromRows, KeyValueEditor, type KvRow, toRows } from './KeyValueEditor';

/**
 * The project's config variables (docs/templates.md "Config variables"): constants every template of
 * the project reads as `{{config.NAME}}`, saved together (a save replaces the whole set).
 */
export function ProjectConfig({ project, onSaved }: { project: Project; onSaved: (p: Project) => void }) {
  const [rows, setRows] = useState<KvRow[]>(() => toRows(project.config));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const p = await api.updateProject(project.id, { config: fromRows(rows) });
      setRows(toRows(p.config));
      setSaved(true);
      onSaved(p);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const errors =
    error instanceof ApiError
      ? error.details.map((d) => `${d.path.replace(/^\/config\/?/, '') || 'config'}: ${d.message}`)
      : [];
  return (
    <form className="config-form" onSubmit={submit} aria-label="Config variables">
      <p className="hint">
        Read in any template of this project as <code>{'{{config.NAME}}'}</code>. Names use A–Z, a–z, 0–9 and _.
      </p>
      <KeyValueEditor
        label="Config variables"
        rows={rows}
        onChange={(r) => {
          setRows(r);
          setSaved(false);
        }}
        keyPlaceholder="tenant"
        valuePlaceholder="t-42"
        errors={errors}
      />
      {error !== null && !(error instanceof ApiError && error.details.length > 0) && (
        <p className="field-error" role="alert">
          {errorMessage(error)}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save config'}
        </button>
        {saved && (
          <span className="hint hint-ok" role="status">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}
