import { useId, useState } from 'react';
import { api, errorMessage } from '../api';
import type { Endpoint } from '../types';

type Modes = NonNullable<Endpoint['validation']>;
const CHOICES = ['project', 'off', 'warn', 'enforce'] as const;

/**
 * An endpoint's own contract validation (docs/contract.md): its requests checked off, warn or
 * enforce, or as the project says; its answers as the project says unless set here too.
 */
export function EndpointValidation({
  projectId,
  endpoint,
  onSaved,
}: {
  projectId: string;
  endpoint: Endpoint;
  onSaved: (e: Endpoint) => void;
}) {
  const id = useId();
  const [error, setError] = useState<unknown>(null);
  const current = endpoint.validation;
  const save = async (choice: (typeof CHOICES)[number], answers: boolean) => {
    setError(null);
    const validation: Modes | null =
      choice === 'project'
        ? null
        : { requests: choice, responses: answers ? 'warn' : 'off', status: current?.status ?? 400 };
    try {
      onSaved(await api.updateEndpoint(projectId, endpoint.id, { validation }));
    } catch (err) {
      setError(err);
    }
  };
  const choice = current === null ? 'project' : current.requests;
  return (
    <div className="card endpoint-validation">
      <div className="inline-field">
        <label htmlFor={`${id}-requests`}>Contract validation of this endpoint</label>
        <select
          id={`${id}-requests`}
          value={choice}
          onChange={(e) => save(e.target.value as (typeof CHOICES)[number], current?.responses === 'warn')}
        >
          <option value="project">as the project says</option>
          <option value="off">requests: off</option>
          <option value="warn">requests: warn</option>
          <option value="enforce">requests: enforce</option>
        </select>
      </div>
      {current !== null && (
        <label className="check">
          <input
            type="checkbox"
            checked={current.responses === 'warn'}
            onChange={(e) => save(current.requests, e.target.checked)}
          />
          Check its answers too (warn)
        </label>
      )}
      {error !== null && (
        <p className="field-error" role="alert">
          {errorMessage(error)}
        </p>
      )}
    </div>
  );
}
