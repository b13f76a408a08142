import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import type { Project } from '../types';
import { LIMITS } from '../types';
import { useConfirm } from './confirm';
import { useToast } from './toast';

/** Inline rename form for a project. */
export function RenameProject({
  project,
  onDone,
  onCancel,
}: {
  project: Project;
  onDone: (p: Project) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(project.name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.select();
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      setError('A project needs a name.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onDone(await api.renameProject(project.id, name.trim()));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="inline-form" onSubmit={submit}>
      <label className="sr-only" htmlFor={`rename-${project.id}`}>
        New name for {project.name}
      </label>
      <input
        id={`rename-${project.id}`}
        ref={input}
        value={name}
        maxLength={LIMITS.nameLength}
        onChange={(e) => setName(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onCancel();
        }}
        aria-invalid={!!error}
      />
      <button type="submit" className="btn btn-primary btn-small" disabled={busy}>
        Save name
      </button>
      <button type="button" className="btn btn-small" onClick={onCancel}>
        Cancel
      </button>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

export function useDeleteProject() {
  const confirm = useConfirm();
  const toast = useToast();
  return async (project: Project): Promise<boolean> => {
    const ok = await confirm({
      title: `Delete project “${project.name}”?`,
      message: (
        <p>
          Its endpoints, rules, stored variables and request log are deleted too, and its mock URLs stop answering. This
          cannot be undone.
        </p>
      ),
      confirmLabel: 'Delete project',
      danger: true,
    });
    if (!ok) return false;
    try {
      await api.deleteProject(project.id);
      toast(`Deleted project ${project.name}`);
      return true;
    } catch (err) {
      toast(`Could not delete: ${errorMessage(err)}`);
      return false;
    }
  };
}
