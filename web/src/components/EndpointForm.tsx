import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError, type EndpointInput, errorMessage } from '../api';
import { anchorErrors } from '../hooks';
import { METHODS } from '../types';
import { isJsonType, JsonEditor } from './JsonEditor';
import { fromRows, KeyValueEditor, type KvRow, toRows } from './KeyValueEditor';
import { FieldError } from './ui';

const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'text/html',
  'application/xml',
  'text/csv',
  'application/x-www-form-urlencoded',
];

export const emptyEndpoint: EndpointInput = {
  method: 'GET',
  path: '/',
  statusCode: 200,
  responseBody: '',
  contentType: 'application/json',
};

function localCheck(v: { path: string; statusCode: string; contentType: string }): Map<string, string[]> {
  const m = new Map<string, string[]>();
  if (!v.path.startsWith('/')) m.set('/path', ['The path must start with “/”, e.g. /api/users/:id.']);
  else if (/\s/.test(v.path)) m.set('/path', ['The path cannot contain spaces.']);
  else if (v.path.includes('?')) m.set('/path', ['Leave the query string out; match it with a rule condition.']);
  const n = Number(v.statusCode);
  if (!/^\d+$/.test(v.statusCode) || n < 100 || n > 599) m.set('/statusCode', ['A whole number from 100 to 599.']);
  if (!v.contentType.trim()) m.set('/contentType', ['Give a content type, e.g. application/json.']);
  return m;
}

/** Create or edit the default response of an endpoint. */
export function EndpointForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
  requireChange = false,
  autoFocus = false,
}: {
  initial: EndpointInput;
  submitLabel: string;
  requireChange?: boolean;
  /** the form takes the focus when it opens (its first field): "New endpoint" */
  autoFocus?: boolean;
  onSubmit: (input: EndpointInput) => Promise<void>;
  onCancel?: () => void;
}) {
  const id = useId();
  const [method, setMethod] = useState<string>(initial.method);
  const [path, setPath] = useState(initial.path);
  const [statusCode, setStatusCode] = useState(String(initial.statusCode));
  const [contentType, setContentType] = useState(initial.contentType);
  const [body, setBody] = useState(initial.responseBody);
  const [headers, setHeaders] = useState<KvRow[]>(toRows(initial.headers));
  const [channels, setChannels] = useState((initial.channels ?? []).join(', '));
  const [busy, setBusy] = useState(false);
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // the values a server error was about: an edit clears it (no stale "already exists" for a new path)
  const [failedWith, setFailedWith] = useState<{ method: string; path: string } | null>(null);
  const edited =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      if (error !== null) setError(null);
    };
  const formRef = useRef<HTMLFormElement>(null);
  // after a failed submit, the first invalid field takes the focus (once the errors are rendered)
  const [failedSubmits, setFailedSubmits] = useState(0);
  useEffect(() => {
    if (failedSubmits > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [failedSubmits]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the form opens
  useEffect(() => {
    if (autoFocus) formRef.current?.querySelector<HTMLElement>('select, input')?.focus();
  }, []);

  const local = touched ? localCheck({ path, statusCode, contentType }) : new Map<string, string[]>();
  const server = anchorErrors(error instanceof ApiError ? error.details : [], [
    '/method',
    '/path',
    '/statusCode',
    '/contentType',
    '/responseBody',
    '/headers',
  ]);
  const errs = (k: string) => [...(local.get(k) ?? []), ...(server.get(k) ?? [])];
  const pathErrors = errs('/path');
  if (error instanceof ApiError && error.code === 'conflict' && failedWith) {
    pathErrors.push(
      `${failedWith.method} ${failedWith.path} already exists in this project; pick another method or path.`,
    );
  }
  const general =
    error &&
    !(error instanceof ApiError && (error.code === 'conflict' || (error.details.length > 0 && !server.get(''))))
      ? errorMessage(error)
      : null;
  const dirty =
    method !== initial.method ||
    path !== initial.path ||
    statusCode !== String(initial.statusCode) ||
    contentType !== initial.contentType ||
    body !== initial.responseBody ||
    JSON.stringify(fromRows(headers)) !== JSON.stringify(initial.headers ?? {});

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    const focusFirstInvalid = () => setFailedSubmits((n) => n + 1);
    if (localCheck({ path, statusCode, contentType }).size > 0) {
      focusFirstInvalid();
      return;
    }
    setBusy(true);
    setError(null);
    setFailedWith({ method, path });
    try {
      await onSubmit({
        method: method as EndpointInput['method'],
        path,
        statusCode: Number(statusCode),
        responseBody: body,
        contentType,
        headers: fromRows(headers),
        ...(method === 'WS'
          ? {
              channels: channels
                .split(',')
                .map((c) => c.trim())
                .filter(Boolean),
            }
          : {}),
      });
    } catch (err) {
      setError(err);
      focusFirstInvalid();
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="endpoint-form" onSubmit={submit} ref={formRef}>
      <div className="grid-ep">
        <div className="field">
          <label htmlFor={`${id}-method`}>Method</label>
          <select
            id={`${id}-method`}
            value={method}
            aria-invalid={errs('/method').length > 0}
            aria-describedby={errs('/method').length > 0 ? `${id}-method-error` : undefined}
            onChange={(e) => edited(setMethod)(e.target.value)}
          >
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
          <FieldError id={`${id}-method-error`} messages={errs('/method')} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-path`}>Path</label>
          <input
            id={`${id}-path`}
            value={path}
            placeholder="/api/users/:id"
            spellCheck={false}
            aria-invalid={pathErrors.length > 0}
            aria-describedby={pathErrors.length > 0 ? `${id}-path-error ${id}-path-hint` : `${id}-path-hint`}
            onChange={(e) => edited(setPath)(e.target.value)}
            onBlur={() => setTouched(true)}
          />
          <p id={`${id}-path-hint`} className="hint">
            <code>:name</code> matches one segment, a final <code>*</code> the rest.
          </p>
          <FieldError id={`${id}-path-error`} messages={pathErrors} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-status`}>Status</label>
          <input
            id={`${id}-status`}
            inputMode="numeric"
            value={statusCode}
            aria-invalid={errs('/statusCode').length > 0}
            aria-describedby={errs('/statusCode').length > 0 ? `${id}-status-error` : undefined}
            onChange={(e) => edited(setStatusCode)(e.target.value.trim())}
            onBlur={() => setTouched(true)}
          />
          <FieldError id={`${id}-status-error`} messages={errs('/statusCode')} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-ct`}>Content type</label>
          <input
            id={`${id}-ct`}
            list={`${id}-ct-list`}
            value={contentType}
            spellCheck={false}
            aria-invalid={errs('/contentType').length > 0}
            aria-describedby={errs('/contentType').length > 0 ? `${id}-ct-error` : undefined}
            onChange={(e) => edited(setContentType)(e.target.value)}
          />
          <datalist id={`${id}-ct-list`}>
            {CONTENT_TYPES.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
          <FieldError id={`${id}-ct-error`} messages={errs('/contentType')} />
        </div>
      </div>
      <JsonEditor
        label="Response body"
        value={body}
        onChange={edited(setBody)}
        json={isJsonType(contentType)}
        errors={errs('/responseBody')}
        placeholder={isJsonType(contentType) ? '{ "id": "{{request.params.id}}", "name": "Ada" }' : ''}
        hint="Templates such as {{request.params.id}}, {{request.query.q}}, {{endpoint.name}} and {{$uuid}} are filled in."
      />
      {method === 'WS' && (
        <div className="field">
          <label htmlFor={`${id}-channels`}>Channels its sockets join besides default (comma-separated)</label>
          <input
            id={`${id}-channels`}
            value={channels}
            onChange={(e) => edited(setChannels)(e.target.value)}
            placeholder="lobby, alerts"
          />
          <FieldError id={`${id}-channels-error`} messages={errs('/channels')} />
        </div>
      )}
      <KeyValueEditor
        label="Response headers"
        rows={headers}
        onChange={edited(setHeaders)}
        keyPlaceholder="cache-control"
        valuePlaceholder="no-store"
        errors={errs('/headers')}
      />
      {general && (
        <p className="field-error" role="alert">
          {general}
        </p>
      )}
      <div className="form-actions">
        {onCancel && (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="btn btn-primary" disabled={busy || (requireChange && !dirty)}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
