/**
 * The project's contract (docs/contract.md): attach or replace an OpenAPI document, set the
 * validation modes, and see coverage and lint — the operations no endpoint mocks, and every answer
 * that does not follow the contract.
 */
import { type FormEvent, useState } from 'react';
import { ApiError, api, type ContractAnswer, errorMessage, type LintReport } from '../api';
import { useConfirm } from '../components/confirm';
import { DocumentInput } from '../components/DocumentInput';
import { ProjectHeader } from '../components/ProjectHeader';
import { useToast } from '../components/toast';
import { ErrorBanner, MethodBadge, Spinner } from '../components/ui';
import { useLoad } from '../hooks';
import { Link, paths } from '../router';
import type { Project } from '../types';
import { NotFoundProject } from './ProjectPage';

export function ContractPage({ projectId }: { projectId: string }) {
  const project = useLoad((s) => api.project(projectId, s), [projectId]);
  // the lint answers 404 when there is no contract: that is the empty state, not an error
  const lint = useLoad((s) => api.lintContract(projectId, s), [projectId]);
  if (project.apiError?.status === 404) return <NotFoundProject />;
  if (!project.data)
    return project.error ? <ErrorBanner error={project.error} onRetry={project.reload} /> : <Spinner />;
  const none = lint.apiError?.status === 404;
  return (
    <div className="page">
      <ProjectHeader project={project.data} tab="contract" onRenamed={(p) => project.setData(() => p)} />
      <section className="card" aria-labelledby="contract-attach">
        <h2 id="contract-attach">{none ? 'Attach a contract' : 'Replace the contract'}</h2>
        <AttachForm projectId={projectId} onAttached={lint.reload} hasOne={!none && lint.data !== undefined} />
      </section>
      <section className="card" aria-labelledby="contract-modes">
        <h2 id="contract-modes">Validation</h2>
        <ModesForm project={project.data} onSaved={(p) => project.setData(() => p)} />
      </section>
      {none ? (
        <p className="hint">No contract yet: nothing is validated.</p>
      ) : lint.data ? (
        <LintView report={lint.data} projectId={projectId} />
      ) : lint.error ? (
        <ErrorBanner error={lint.error} onRetry={lint.reload} />
      ) : (
        <Spinner />
      )}
    </div>
  );
}

function AttachForm({ projectId, onAttached, hasOne }: { projectId: string; onAttached: () => void; hasOne: boolean }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [answer, setAnswer] = useState<ContractAnswer | null>(null);
  const confirm = useConfirm();
  const toast = useToast();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const a = await api.putContract(projectId, text);
      setAnswer(a);
      setText('');
      onAttached();
      toast(`Contract attached: ${a.operations} operations`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Contract document">
      <DocumentInput
        fileLabel="OpenAPI 3.0 / 3.1 or Swagger 2.0 file"
        textLabel="Or paste the document (JSON or YAML)"
        accept=".json,.yaml,.yml,application/json,application/yaml"
        value={text}
        onChange={setText}
      />
      {error !== null && (
        <p className="field-error" role="alert">
          {error instanceof ApiError && error.details.length > 0
            ? error.details.map((d) => `${d.path || '/'}: ${d.message}`).join(' ')
            : errorMessage(error)}
        </p>
      )}
      {answer && (
        <p className="hint hint-ok" role="status">
          {answer.format}, {answer.operations} operations
          {answer.warnings.length > 0 ? `, ${answer.warnings.length} warnings` : ''}.
        </p>
      )}
      {answer?.warnings.map((w) => (
        <p key={`${w.pointer}:${w.message}`} className="hint">
          {w.pointer}: {w.message}
        </p>
      ))}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || text.trim() === ''}>
          {busy ? 'Attaching…' : hasOne ? 'Replace contract' : 'Attach contract'}
        </button>
        {hasOne && (
          <button
            type="button"
            className="btn btn-danger"
            onClick={async () => {
              if (
                !(await confirm({
                  title: 'Remove the contract?',
                  confirmLabel: 'Remove contract',
                  message: 'Nothing will be validated any more.',
                  danger: true,
                }))
              )
                return;
              await api.deleteContract(projectId);
              setAnswer(null);
              onAttached();
              toast('Contract removed');
            }}
          >
            Remove contract
          </button>
        )}
      </div>
    </form>
  );
}

function ModesForm({ project, onSaved }: { project: Project; onSaved: (p: Project) => void }) {
  const [modes, setModes] = useState(project.validation);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const set = (patch: Partial<Project['validation']>) => {
    setModes({ ...modes, ...patch });
    setSaved(false);
  };
  return (
    <form
      aria-label="Validation modes"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        try {
          onSaved(await api.updateProject(project.id, { validation: modes }));
          setSaved(true);
        } catch (err) {
          setError(err);
        }
      }}
    >
      <div className="field-row">
        <div className="field">
          <label htmlFor="mode-requests">Requests</label>
          <select
            id="mode-requests"
            value={modes.requests}
            onChange={(e) => set({ requests: e.target.value as Project['validation']['requests'] })}
          >
            <option value="off">off</option>
            <option value="warn">warn (answer, with X-Mockyard-Violations)</option>
            <option value="enforce">enforce (answer 400/422 with the violations)</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="mode-responses">Answers</label>
          <select
            id="mode-responses"
            value={modes.responses}
            onChange={(e) => set({ responses: e.target.value as 'off' | 'warn' })}
          >
            <option value="off">off</option>
            <option value="warn">warn</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="mode-status">Status of a refused request</label>
          <select
            id="mode-status"
            value={modes.status}
            onChange={(e) => set({ status: Number(e.target.value) as 400 | 422 })}
          >
            <option value={400}>400</option>
            <option value={422}>422</option>
          </select>
        </div>
      </div>
      <p className="hint">
        A request may pick its own mode with the header <code>X-Mockyard-Validate: off|warn|enforce</code>; an endpoint
        may override these on its page.
      </p>
      {error !== null && (
        <p className="field-error" role="alert">
          {errorMessage(error)}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary">
          Save validation
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

function LintView({ report, projectId }: { report: LintReport; projectId: string }) {
  const { operations, endpoints } = report;
  const problems = endpoints.flatMap((e) => e.problems.map((p) => ({ e, p })));
  return (
    <>
      <section className="card" aria-labelledby="contract-coverage">
        <h2 id="contract-coverage">Coverage</h2>
        <p>
          {operations.mocked} of {operations.total} operations are mocked.
        </p>
        {operations.unmocked.length > 0 && (
          <ul aria-label="Operations no endpoint mocks" className="plain-list">
            {operations.unmocked.map((o) => (
              <li key={`${o.method} ${o.path}`}>
                <MethodBadge method={o.method} /> <code>{o.path}</code>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="contract-lint">
        <h2 id="contract-lint">Problems</h2>
        {problems.length === 0 ? (
          <p className="hint hint-ok">Every answer follows the contract.</p>
        ) : (
          <ul aria-label="Answers that do not follow the contract" className="plain-list">
            {problems.map(({ e, p }) => (
              <li key={`${e.endpointId}:${p.where}:${p.pointer}:${p.message}`}>
                <Link href={paths.endpoint(projectId, e.endpointId)}>
                  {e.method} {e.path}
                </Link>{' '}
                <span className="muted small">
                  ({p.where === 'default' ? 'default answer' : p.where.replace('/step:', ', step ')})
                </span>{' '}
                {p.pointer !== undefined && <code>{p.pointer || '/'}</code>} {p.message}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
