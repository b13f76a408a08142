import { type FormEvent, useState } from 'react';
import { ApiError, api, errorMessage } from '../api';
import type { Project } from '../types';
import { FieldError } from './ui';

/**
 * The project's fallback target and record mode (docs/interop.md): requests no endpoint answers go
 * to the fallback URL; while recording, every request goes there and each answer becomes an
 * endpoint or a rule.
 */
export function ProjectFallback({ project, onSaved }: { project: Project; onSaved: (p: Project) => void }) {
  const [url, setUrl] = useState(project.fallbackUrl ?? '');
  const [recording, setRecording] = useState(project.recording);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const field = (path: string) =>
    error instanceof ApiError ? error.details.filter((d) => d.path === path).map((d) => d.message) : [];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const p = await api.updateProject(project.id, { fallbackUrl: url.trim() === '' ? null : url.trim(), recording });
      setRecording(p.recording);
      setSaved(true);
      onSaved(p);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const urlErrors = field('/fallbackUrl');
  const recErrors = field('/recording');
  return (
    <form className="fallback-form" onSubmit={submit} aria-label="Fallback and recording">
      <div className="field">
        <label htmlFor="fallback-url">Fallback URL (requests no endpoint answers go here)</label>
        <input
          id="fallback-url"
          type="url"
          placeholder="https://api.example.com"
          value={url}
          aria-invalid={urlErrors.length > 0}
          aria-describedby={urlErrors.length > 0 ? 'fallback-url-error' : undefined}
          onChange={(e) => {
            setUrl(e.target.value);
            setSaved(false);
          }}
        />
        <FieldError id="fallback-url-error" messages={urlErrors} />
      </div>
      <label className="check">
        <input
          type="checkbox"
          checked={recording}
          aria-describedby={recErrors.length > 0 ? 'recording-error' : 'recording-hint'}
          onChange={(e) => {
            setRecording(e.target.checked);
            setSaved(false);
          }}
        />{' '}
        Record: send every request to the fallback URL and keep each answer as a mock
      </label>
      <p id="recording-hint" className="muted small">
        Each new method and path becomes an endpoint; a request that differs by query or body becomes a rule. Turn it
        off to answer from the recording.
      </p>
      <FieldError id="recording-error" messages={recErrors} />
      {error !== null && urlErrors.length + recErrors.length === 0 && (
        <p className="banner banner-error" role="alert">
          {errorMessage(error)}
        </p>
      )}
      <div className="row-actions">
        <button type="submit" className="btn btn-small" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        {saved && (
          <span className="muted small" role="status">
            Saved{project.recording ? ': recording' : ''}.
          </span>
        )}
      </div>
    </form>
  );
}
