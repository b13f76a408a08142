import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { ApiError, errorMessage } from '../api';
import { isJsonType, JsonEditor } from '../components/JsonEditor';
import { KeyValueEditor } from '../components/KeyValueEditor';
import { FieldError } from '../components/ui';
import { anchorErrors } from '../hooks';
import { CONDITION_TARGETS, FAULTS, type Fault, LIMITS, METHODS, OPERATORS, type RuleInput } from '../types';
import { ACTION_TYPES_ORDER } from './constants';
import {
  ACTION_LABELS,
  type ActionDraft,
  type CondDraft,
  draftAnchors,
  FAULT_LABELS,
  fromDraft,
  needsKey,
  needsValue,
  newAction,
  newCondition,
  newStep,
  OPERATOR_LABELS,
  type RuleDraft,
  type StepDraft,
  TARGET_LABELS,
  validateDraft,
} from './draft';

type Errs = (path: string) => string[];

function move<T>(list: T[], i: number, d: -1 | 1): T[] {
  const j = i + d;
  if (j < 0 || j >= list.length) return list;
  const out = [...list];
  [out[i], out[j]] = [out[j], out[i]];
  return out;
}

function Field({
  label,
  errors,
  children,
  className,
  hint,
}: {
  label: string;
  errors?: string[];
  /** the third argument is the id of the hint, for aria-describedby */
  children: (id: string, invalid: boolean, hintId: string | undefined) => ReactNode;
  className?: string;
  hint?: ReactNode;
}) {
  const id = useId();
  const invalid = (errors?.length ?? 0) > 0;
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      {children(id, invalid, hintId)}
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      <FieldError messages={errors} />
    </div>
  );
}

const FAULT_HINTS: Record<'' | Fault, string> = {
  '': 'Or fail at the network level instead of answering, to test timeouts, retries and error handling.',
  connection_reset:
    'After the delay, the TCP connection is reset: the client sees ECONNRESET. Status and body are not sent.',
  empty_response: 'After the delay, the connection closes without a byte: the client sees “socket hang up”.',
  malformed_body:
    'After the delay, a 200 status line, then bytes that are not a valid chunked body, then close: a parse error in the client.',
};

function ConditionRow({
  c,
  i,
  set,
  remove,
  errs,
}: {
  c: CondDraft;
  i: number;
  set: (patch: Partial<CondDraft>) => void;
  remove: () => void;
  errs: Errs;
}) {
  const p = `/conditions/${i}`;
  const isRandom = c.target === 'random';
  return (
    <fieldset className="cond-row">
      <legend className="sr-only">Condition {i + 1}</legend>
      <Field label="Target" errors={errs(`${p}/target`)}>
        {(id) => (
          <select
            id={id}
            value={c.target}
            onChange={(e) => {
              const target = e.target.value as CondDraft['target'];
              set(target === 'random' ? { target, operator: 'less_than', value: c.value || '50' } : { target });
            }}
          >
            {CONDITION_TARGETS.map((t) => (
              <option key={t} value={t}>
                {TARGET_LABELS[t]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {needsKey(c.target) && (
        <Field
          label={c.target === 'header' ? 'Header name' : c.target === 'query' ? 'Parameter' : 'JSON path'}
          errors={errs(`${p}/key`)}
        >
          {(id, invalid) => (
            <input
              id={id}
              value={c.key}
              spellCheck={false}
              placeholder={c.target === 'header' ? 'x-tier' : c.target === 'query' ? 'page' : 'user.id'}
              aria-invalid={invalid}
              onChange={(e) => set({ key: e.target.value })}
            />
          )}
        </Field>
      )}
      <Field label="Operator" errors={errs(`${p}/operator`)}>
        {(id, invalid) => (
          <select
            id={id}
            value={c.operator}
            aria-invalid={invalid}
            onChange={(e) => set({ operator: e.target.value as CondDraft['operator'] })}
          >
            {OPERATORS.map((o) => (
              <option key={o} value={o}>
                {OPERATOR_LABELS[o]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {needsValue(c.operator) && (
        <Field label={isRandom ? 'Percent' : 'Value'} errors={errs(`${p}/value`)}>
          {(id, invalid) => (
            <input
              id={id}
              value={c.value}
              spellCheck={false}
              inputMode={c.operator === 'less_than' ? 'decimal' : undefined}
              aria-invalid={invalid}
              onChange={(e) => set({ value: e.target.value })}
            />
          )}
        </Field>
      )}
      <div className="row-end">
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label={`Remove condition ${i + 1}`}
          onClick={remove}
        >
          ✕
        </button>
      </div>
      <FieldError messages={errs(p)} />
    </fieldset>
  );
}

function StepCard({
  s,
  i,
  count,
  set,
  remove,
  moveBy,
  errs,
  defaultContentType,
}: {
  s: StepDraft;
  i: number;
  count: number;
  set: (patch: Partial<StepDraft>) => void;
  remove: () => void;
  moveBy: (d: -1 | 1) => void;
  errs: Errs;
  defaultContentType: string;
}) {
  const p = `/response/steps/${i}`;
  const ct = s.headers.find((h) => h.key.trim().toLowerCase() === 'content-type')?.value ?? defaultContentType;
  return (
    <fieldset className="step">
      <legend>Step {i + 1}</legend>
      <div className="step-tools">
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label={`Move step ${i + 1} up`}
          disabled={i === 0}
          onClick={() => moveBy(-1)}
        >
          ↑
        </button>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label={`Move step ${i + 1} down`}
          disabled={i === count - 1}
          onClick={() => moveBy(1)}
        >
          ↓
        </button>
        <button
          type="button"
          className="btn btn-small btn-danger-ghost"
          aria-label={`Remove step ${i + 1}`}
          disabled={count === 1}
          onClick={remove}
        >
          Remove
        </button>
      </div>
      <div className="grid-step">
        <Field label="Status" errors={errs(`${p}/statusCode`)}>
          {(id, invalid) => (
            <input
              id={id}
              inputMode="numeric"
              value={s.statusCode}
              aria-invalid={invalid}
              onChange={(e) => set({ statusCode: e.target.value.trim() })}
            />
          )}
        </Field>
        <Field label="Count" errors={errs(`${p}/count`)}>
          {(id, invalid) => (
            <input
              id={id}
              inputMode="numeric"
              value={s.count}
              aria-invalid={invalid}
              onChange={(e) => set({ count: e.target.value.trim() })}
            />
          )}
        </Field>
        <Field label="Delay (ms)" errors={errs(`${p}/delayMs`)}>
          {(id, invalid) => (
            <input
              id={id}
              inputMode="numeric"
              value={s.delayMs}
              aria-invalid={invalid}
              onChange={(e) => set({ delayMs: e.target.value.trim() })}
            />
          )}
        </Field>
        <Field label="Delay max (ms)" errors={errs(`${p}/delayMaxMs`)}>
          {(id, invalid) => (
            <input
              id={id}
              inputMode="numeric"
              value={s.delayMaxMs}
              aria-invalid={invalid}
              onChange={(e) => set({ delayMaxMs: e.target.value.trim() })}
            />
          )}
        </Field>
        <Field label="Fault" errors={errs(`${p}/fault`)} className="span-2" hint={FAULT_HINTS[s.fault]}>
          {(id, _invalid, hintId) => (
            <select
              id={id}
              value={s.fault}
              aria-describedby={hintId}
              title="Simulate a network failure instead of answering"
              onChange={(e) => set({ fault: e.target.value as '' | Fault })}
            >
              <option value="">None — answer normally</option>
              {FAULTS.map((f) => (
                <option key={f} value={f}>
                  {FAULT_LABELS[f]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <KeyValueEditor
        label="Headers"
        rows={s.headers}
        onChange={(headers) => set({ headers })}
        keyPlaceholder="content-type"
        valuePlaceholder="application/json"
        errors={errs(`${p}/headers`)}
      />
      <JsonEditor
        label="Body"
        rows={5}
        value={s.body}
        onChange={(body) => set({ body })}
        json={isJsonType(ct)}
        errors={errs(`${p}/body`)}
      />
      <FieldError messages={errs(p)} />
    </fieldset>
  );
}

function ActionCard({
  a,
  i,
  count,
  set,
  remove,
  moveBy,
  errs,
}: {
  a: ActionDraft;
  i: number;
  count: number;
  set: (patch: Partial<ActionDraft>) => void;
  remove: () => void;
  moveBy: (d: -1 | 1) => void;
  errs: Errs;
}) {
  const p = `/actions/${i}`;
  return (
    <fieldset className="step">
      <legend>Action {i + 1}</legend>
      <div className="step-tools">
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label={`Move action ${i + 1} up`}
          disabled={i === 0}
          onClick={() => moveBy(-1)}
        >
          ↑
        </button>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label={`Move action ${i + 1} down`}
          disabled={i === count - 1}
          onClick={() => moveBy(1)}
        >
          ↓
        </button>
        <button
          type="button"
          className="btn btn-small btn-danger-ghost"
          aria-label={`Remove action ${i + 1}`}
          onClick={remove}
        >
          Remove
        </button>
      </div>
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
            <Field label="Variable name" errors={errs(`${p}/name`)}>
              {(id, invalid) => (
                <input
                  id={id}
                  value={a.name}
                  spellCheck={false}
                  aria-invalid={invalid}
                  onChange={(e) => set({ name: e.target.value })}
                />
              )}
            </Field>
            <Field label="Value" errors={errs(`${p}/value`)}>
              {(id, invalid) => (
                <input
                  id={id}
                  value={a.value}
                  spellCheck={false}
                  placeholder="{{request.query.id}}"
                  aria-invalid={invalid}
                  onChange={(e) => set({ value: e.target.value })}
                />
              )}
            </Field>
            <p className="hint span-all">
              Read it as{' '}
              <code>
                {a.type === 'set_variable' ? `{{vars.${a.name || 'name'}}}` : `{{endpoint.${a.name || 'name'}}}`}
              </code>
              {a.type === 'set_variable' ? ' for the rest of this request.' : ', kept across requests (see Storage).'}
            </p>
          </>
        ) : (
          <>
            <Field label="URL" errors={errs(`${p}/url`)} className="span-all">
              {(id, invalid) => (
                <input
                  id={id}
                  value={a.url}
                  spellCheck={false}
                  placeholder="https://hooks.example.com/order"
                  aria-invalid={invalid}
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
            <Field label="Timeout (ms)" errors={errs(`${p}/timeoutMs`)}>
              {(id, invalid) => (
                <input
                  id={id}
                  inputMode="numeric"
                  value={a.timeoutMs}
                  aria-invalid={invalid}
                  onChange={(e) => set({ timeoutMs: e.target.value.trim() })}
                />
              )}
            </Field>
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

/** The full rule form: name, priority, active, conditions, response steps and actions. */
export function RuleEditor({
  initial,
  title,
  submitLabel,
  defaultContentType,
  onSave,
  onCancel,
  limitNote,
}: {
  initial: RuleDraft;
  title: string;
  submitLabel: string;
  defaultContentType: string;
  onSave: (input: RuleInput) => Promise<void>;
  onCancel: () => void;
  limitNote?: string;
}) {
  const id = useId();
  const [d, setD] = useState<RuleDraft>(initial);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const local = tried ? validateDraft(d) : new Map<string, string[]>();
  const server = anchorErrors(error instanceof ApiError ? error.details : [], draftAnchors(d));
  const errs: Errs = (path) => [...(local.get(path) ?? []), ...(server.get(path) ?? [])];
  const planLimit = error instanceof ApiError && error.code === 'plan_limit_exceeded';
  const general =
    error && !(error instanceof ApiError && error.details.length > 0 && !server.get(''))
      ? planLimit
        ? `${errorMessage(error)} — your plan's rule limit is reached. Delete a rule or upgrade your plan.`
        : errorMessage(error)
      : null;
  const unanchored = server.get('') ?? [];

  const upd = (patch: Partial<RuleDraft>) => setD((x) => ({ ...x, ...patch }));
  const setCond = (i: number, patch: Partial<CondDraft>) =>
    upd({ conditions: d.conditions.map((c, j) => (j === i ? { ...c, ...patch } : c)) });
  const setStep = (i: number, patch: Partial<StepDraft>) =>
    upd({ steps: d.steps.map((s, j) => (j === i ? { ...s, ...patch } : s)) });
  const setAction = (i: number, patch: Partial<ActionDraft>) =>
    upd({ actions: d.actions.map((a, j) => (j === i ? { ...a, ...patch } : a)) });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (validateDraft(d).size > 0) return;
    setBusy(true);
    setError(null);
    try {
      await onSave(fromDraft(d));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const localCount = local.size;
  return (
    <form className="card rule-editor" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <div className="grid-rule">
        <Field label="Rule name" errors={errs('/name')} className="grow">
          {(fid, invalid) => (
            <input
              id={fid}
              value={d.name}
              maxLength={LIMITS.nameLength}
              aria-invalid={invalid}
              onChange={(e) => upd({ name: e.target.value })}
            />
          )}
        </Field>
        <Field label="Priority" errors={errs('/priority')}>
          {(fid, invalid) => (
            <input
              id={fid}
              inputMode="numeric"
              value={d.priority}
              aria-invalid={invalid}
              onChange={(e) => upd({ priority: e.target.value.trim() })}
            />
          )}
        </Field>
        <div className="field check-field">
          <label className="check">
            <input type="checkbox" checked={d.active} onChange={(e) => upd({ active: e.target.checked })} />
            Active
          </label>
        </div>
      </div>
      <p className="hint">Lower priority runs first. Only active rules are evaluated.</p>

      <fieldset className="section">
        <legend>Conditions</legend>
        <p className="hint">
          All must match (AND). With no conditions the rule matches every request to this endpoint.
        </p>
        {d.conditions.map((c, i) => (
          <ConditionRow
            key={c.uid}
            c={c}
            i={i}
            errs={errs}
            set={(patch) => setCond(i, patch)}
            remove={() => upd({ conditions: d.conditions.filter((_, j) => j !== i) })}
          />
        ))}
        <FieldError messages={errs('/conditions')} />
        <button
          type="button"
          className="btn btn-small"
          onClick={() => upd({ conditions: [...d.conditions, newCondition()] })}
        >
          + Add condition
        </button>
      </fieldset>

      <fieldset className="section">
        <legend>Response</legend>
        <div className="radio-row">
          <label className="check">
            <input
              type="radio"
              name={`${id}-resp`}
              checked={!d.hasResponse}
              onChange={() => upd({ hasResponse: false })}
            />
            No response — only run the actions, then keep evaluating
          </label>
          <label className="check">
            <input
              type="radio"
              name={`${id}-resp`}
              checked={d.hasResponse}
              onChange={() => upd({ hasResponse: true, steps: d.steps.length ? d.steps : [newStep()] })}
            />
            Respond with steps
          </label>
        </div>
        {d.hasResponse && (
          <>
            <Field label="Sequence mode" errors={errs('/response/mode')}>
              {(fid) => (
                <select id={fid} value={d.mode} onChange={(e) => upd({ mode: e.target.value as RuleDraft['mode'] })}>
                  <option value="loop">Loop — after the last step, start again</option>
                  <option value="hold_last">Hold last — keep returning the last step</option>
                </select>
              )}
            </Field>
            <p className="hint">Each step is returned Count times before the next one.</p>
            <div className="steps">
              {d.steps.map((s, i) => (
                <StepCard
                  key={s.uid}
                  s={s}
                  i={i}
                  count={d.steps.length}
                  errs={errs}
                  defaultContentType={defaultContentType}
                  set={(patch) => setStep(i, patch)}
                  remove={() => upd({ steps: d.steps.filter((_, j) => j !== i) })}
                  moveBy={(dir) => upd({ steps: move(d.steps, i, dir) })}
                />
              ))}
            </div>
            <FieldError messages={[...errs('/response/steps'), ...errs('/response')]} />
            <button type="button" className="btn btn-small" onClick={() => upd({ steps: [...d.steps, newStep()] })}>
              + Add step
            </button>
          </>
        )}
      </fieldset>

      <fieldset className="section">
        <legend>Actions</legend>
        <p className="hint">Run in order when the conditions match, before the response.</p>
        <div className="steps">
          {d.actions.map((a, i) => (
            <ActionCard
              key={a.uid}
              a={a}
              i={i}
              count={d.actions.length}
              errs={errs}
              set={(patch) => setAction(i, patch)}
              remove={() => upd({ actions: d.actions.filter((_, j) => j !== i) })}
              moveBy={(dir) => upd({ actions: move(d.actions, i, dir) })}
            />
          ))}
        </div>
        <FieldError messages={errs('/actions')} />
        <button type="button" className="btn btn-small" onClick={() => upd({ actions: [...d.actions, newAction()] })}>
          + Add action
        </button>
      </fieldset>

      {localCount > 0 && (
        <p className="field-error" role="alert">
          Fix the {localCount === 1 ? 'field' : `${localCount} fields`} marked above.
        </p>
      )}
      {general && (
        <p className="field-error" role="alert">
          {general}
        </p>
      )}
      {unanchored.length > 0 && (
        <ul className="field-error" role="alert">
          {(error instanceof ApiError ? error.details.filter((x) => server.get('')?.includes(x.message)) : []).map(
            (x) => (
              <li key={`${x.path}:${x.message}`}>
                {x.path ? <code>{x.path}</code> : null} {x.message}
              </li>
            ),
          )}
        </ul>
      )}
      {limitNote && <p className="hint">{limitNote}</p>}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
