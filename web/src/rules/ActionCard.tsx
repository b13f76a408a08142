/** One action of a rule: set, store or delete a variable, or call a webhook. */
import type { HTMLAttributes } from 'react';
import { isJsonType, JsonEditor } from '../components/JsonEditor';
import { KeyValueEditor } from '../components/KeyValueEditor';
import { FieldError } from '../components/ui';
import { METHODS } from '../types';
import { ACTION_TYPES_ORDER } from './constants';
import { ACTION_LABELS, type ActionDraft } from './draft';
import { type Errs, Field, NumberField, ReorderTools } from './fields';

/** How the variable an action writes is read. */
function variableHint(a: ActionDraft): string {
  const name = a.name || 'name';
  if (a.type === 'broadcast')
    return `Sends the value to the project's WebSockets on channel “${a.name || 'channel'}” in this request's session (docs/websocket.md).`;
  if (a.type === 'set_variable') return `Read it as {{vars.${name}}} for the rest of this request.`;
  const read = a.scope === 'project' ? `{{project.${name}}}` : `{{endpoint.${name}}}`;
  const where = a.scope === 'project' ? 'by every endpoint of the project' : 'by this endpoint';
  if (a.type === 'delete_variable') return `Removes ${read}, kept ${where} for the request’s session.`;
  return `Read it as ${read} ${where}, kept across requests of the session (see Storage).`;
}

export function ActionCard({
  a,
  i,
  count,
  set,
  remove,
  moveBy,
  grip,
  domId,
  errs,
}: {
  a: ActionDraft;
  i: number;
  count: number;
  set: (patch: Partial<ActionDraft>) => void;
  remove: () => void;
  moveBy: (d: -1 | 1) => void;
  grip?: HTMLAttributes<HTMLSpanElement>;
  domId?: string;
  errs: Errs;
}) {
  const p = `/actions/${i}`;
  return (
    <fieldset className="step" id={domId}>
      <legend>Action {i + 1}</legend>
      <ReorderTools grip={grip} noun="action" i={i} count={count} moveBy={moveBy} remove={remove} />
      <div className="grid-step">
        <Field label="Type" errors={errs(`${p}/type`)}>
          {(id) => (
            <select id={id} value={a.type} onChange={(e) => set({ type: e.target.value as ActionDraft['type'] })}>
              {ACTION_TYPES_ORDER.map((t) => (
                <option key={t} value={t}>
                  {ACTION_LABELS[t]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="On error" errors={errs(`${p}/onError`)}>
          {(id) => (
            <select
              id={id}
              value={a.onError}
              onChange={(e) => set({ onError: e.target.value as ActionDraft['onError'] })}
            >
              <option value="continue">Continue</option>
              <option value="stop">Stop later actions</option>
            </select>
          )}
        </Field>
        {a.type !== 'http_request' ? (
          <>
            <Field
              label={a.type === 'broadcast' ? 'Channel' : 'Variable name'}
              errors={errs(a.type === 'broadcast' ? `${p}/channel` : `${p}/name`)}
            >
              {(id, invalid, describedBy) => (
                <input
                  id={id}
                  value={a.name}
                  spellCheck={false}
                  aria-invalid={invalid}
                  aria-describedby={describedBy}
                  onChange={(e) => set({ name: e.target.value })}
                />
              )}
            </Field>
            {a.type === 'set_variable' || a.type === 'broadcast' ? null : (
              <Field label="Scope" errors={errs(`${p}/scope`)}>
                {(id) => (
                  <select
                    id={id}
                    value={a.scope}
                    onChange={(e) => set({ scope: e.target.value as ActionDraft['scope'] })}
                  >
                    <option value="endpoint">This endpoint</option>
                    <option value="project">The project (shared by its endpoints)</option>
                  </select>
                )}
              </Field>
            )}
            {a.type === 'delete_variable' ? null : (
              <Field
                label={a.type === 'broadcast' ? 'Message' : 'Value'}
                errors={errs(a.type === 'broadcast' ? `${p}/body` : `${p}/value`)}
              >
                {(id, invalid, describedBy) => (
                  <input
                    id={id}
                    value={a.value}
                    spellCheck={false}
                    placeholder="{{request.query.id}}"
                    aria-invalid={invalid}
                    aria-describedby={describedBy}
                    onChange={(e) => set({ value: e.target.value })}
                  />
                )}
              </Field>
            )}
            <p className="hint span-all">{variableHint(a)}</p>
          </>
        ) : (
          <>
            <Field label="URL" errors={errs(`${p}/url`)} className="span-all">
              {(id, invalid, describedBy) => (
                <input
                  id={id}
                  value={a.url}
                  spellCheck={false}
                  placeholder="https://hooks.example.com/order"
                  aria-invalid={invalid}
                  aria-describedby={describedBy}
                  onChange={(e) => set({ url: e.target.value })}
                />
              )}
            </Field>
            <Field label="HTTP method" errors={errs(`${p}/method`)}>
              {(id) => (
                <select id={id} value={a.method} onChange={(e) => set({ method: e.target.value })}>
                  {METHODS.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              )}
            </Field>
            <NumberField
              label="Timeout (ms)"
              value={a.timeoutMs}
              errors={errs(`${p}/timeoutMs`)}
              onChange={(timeoutMs) => set({ timeoutMs })}
            />
            <Field
              label="Save answer as (optional)"
              errors={errs(`${p}/saveAs`)}
              className="span-2"
              hint={
                <>
                  Keeps the answer for later actions and the response:{' '}
                  <code>{`{{vars.${a.saveAs.trim() || 'hook'}.status}}`}</code>,{' '}
                  <code>{`{{vars.${a.saveAs.trim() || 'hook'}.headers.content-type}}`}</code>,{' '}
                  <code>{`{{vars.${a.saveAs.trim() || 'hook'}.body.user.name}}`}</code> (JSON bodies).
                </>
              }
            >
              {(id, invalid, hintId) => (
                <input
                  id={id}
                  value={a.saveAs}
                  spellCheck={false}
                  placeholder="hook"
                  aria-invalid={invalid}
                  aria-describedby={hintId}
                  title="A name for the answer of this request, read as {{vars.NAME…}}"
                  onChange={(e) => set({ saveAs: e.target.value })}
                />
              )}
            </Field>
            <div className="field check-field">
              <label className="check">
                <input
                  type="checkbox"
                  checked={a.applyResponse}
                  onChange={(e) => set({ applyResponse: e.target.checked })}
                />
                Use its answer as the mock response
              </label>
              <FieldError messages={errs(`${p}/applyResponse`)} />
            </div>
          </>
        )}
      </div>
      {a.type === 'http_request' && (
        <>
          <KeyValueEditor
            label="Request headers"
            rows={a.headers}
            onChange={(headers) => set({ headers })}
            errors={errs(`${p}/headers`)}
          />
          <JsonEditor
            label="Request body"
            rows={4}
            value={a.body}
            onChange={(body) => set({ body })}
            json={a.headers.some((h) => h.key.trim().toLowerCase() === 'content-type' && isJsonType(h.value))}
            errors={errs(`${p}/body`)}
          />
        </>
      )}
      <FieldError messages={errs(p)} />
    </fieldset>
  );
}
