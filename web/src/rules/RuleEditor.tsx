import { type FormEvent, useContext, useEffect, useId, useMemo, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../api';
import { moved, useDragReorder } from '../components/drag-reorder';
import { TemplateHintsContext } from '../components/JsonEditor';
import { FieldError } from '../components/ui';
import { anchorErrors } from '../hooks';
import { LIMITS, type RuleInput } from '../types';
import { ActionCard } from './ActionCard';
import { ConditionRow } from './ConditionRow';
import {
  type ActionDraft,
  type CondDraft,
  draftAnchors,
  fromDraft,
  newAction,
  newCondition,
  newStep,
  type RuleDraft,
  type StepDraft,
  validateDraft,
} from './draft';
import { type Errs, Field, move, NumberField } from './fields';
import { StepCard } from './StepCard';

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
  const formRef = useRef<HTMLFormElement>(null);
  const stepDrag = useDragReorder((from, to) => upd({ steps: moved(d.steps, from, to) }));
  const actionDrag = useDragReorder((from, to) => upd({ actions: moved(d.actions, from, to) }));
  // the bodies' `{{…}}` completion offers the vars this rule's webhooks save
  const outer = useContext(TemplateHintsContext);
  const savedAs = d.actions
    .map((a) => (a.type === 'http_request' ? a.saveAs.trim() : ''))
    .filter(Boolean)
    .join(' ');
  const hints = useMemo(() => ({ ...outer, vars: savedAs ? savedAs.split(' ') : [] }), [outer, savedAs]);
  // the editor takes the focus when it opens (its first field), so Esc and typing work at once
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, []);

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

  /** After a failed save, the first field that says what is wrong takes the focus (else the error). */
  const focusProblem = () =>
    setTimeout(() => {
      const form = formRef.current;
      const field = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
      (field ?? form?.querySelector<HTMLElement>('[role="alert"]'))?.focus();
    }, 0);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (validateDraft(d).size > 0) return focusProblem();
    setBusy(true);
    setError(null);
    try {
      await onSave(fromDraft(d));
    } catch (err) {
      setError(err);
      focusProblem();
    } finally {
      setBusy(false);
    }
  };
  /** A new condition row, with the focus on its first field. */
  const addCondition = () => {
    upd({ conditions: [...d.conditions, newCondition()] });
    setTimeout(() => {
      const rows = formRef.current?.querySelectorAll('.cond-row');
      rows?.[rows.length - 1]?.querySelector<HTMLElement>('select, input')?.focus();
    }, 0);
  };

  const localCount = local.size;
  return (
    <TemplateHintsContext.Provider value={hints}>
      <form
        ref={formRef}
        className="card rule-editor"
        onSubmit={submit}
        aria-labelledby={`${id}-title`}
        onKeyDown={(e) => {
          // Esc closes the editor (a select's own Esc closes its list first)
          if (e.key === 'Escape' && !e.defaultPrevented) {
            e.preventDefault();
            onCancel();
          }
        }}
      >
        <h3 id={`${id}-title`}>{title}</h3>
        <div className="grid-rule">
          <Field label="Rule name" errors={errs('/name')} className="grow">
            {(fid, invalid, describedBy) => (
              <input
                id={fid}
                value={d.name}
                maxLength={LIMITS.nameLength}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onChange={(e) => upd({ name: e.target.value })}
              />
            )}
          </Field>
          <NumberField
            label="Priority"
            value={d.priority}
            errors={errs('/priority')}
            onChange={(priority) => upd({ priority })}
          />
          <div className="field check-field">
            <label className="check">
              <input type="checkbox" checked={d.active} onChange={(e) => upd({ active: e.target.checked })} />
              Active
            </label>
          </div>
          {outer.method === 'WS' && (
            <Field label="Runs on" errors={errs('/on')}>
              {(fid) => (
                <select id={fid} value={d.on} onChange={(e) => upd({ on: e.target.value as RuleDraft['on'] })}>
                  <option value="message">each message</option>
                  <option value="connect">connect</option>
                  <option value="close">close</option>
                </select>
              )}
            </Field>
          )}
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
          <button type="button" className="btn btn-small" onClick={addCondition}>
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
                  <div key={s.uid} className={stepDrag.className(i) || undefined} {...stepDrag.target(i)}>
                    <StepCard
                      grip={stepDrag.handle(i, () => document.getElementById(`${id}-step-${i}`))}
                      domId={`${id}-step-${i}`}
                      s={s}
                      i={i}
                      count={d.steps.length}
                      errs={errs}
                      defaultContentType={defaultContentType}
                      set={(patch) => setStep(i, patch)}
                      remove={() => upd({ steps: d.steps.filter((_, j) => j !== i) })}
                      moveBy={(dir) => upd({ steps: move(d.steps, i, dir) })}
                    />
                  </div>
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
              <div key={a.uid} className={actionDrag.className(i) || undefined} {...actionDrag.target(i)}>
                <ActionCard
                  grip={actionDrag.handle(i, () => document.getElementById(`${id}-action-${i}`))}
                  domId={`${id}-action-${i}`}
                  a={a}
                  i={i}
                  count={d.actions.length}
                  errs={errs}
                  set={(patch) => setAction(i, patch)}
                  remove={() => upd({ actions: d.actions.filter((_, j) => j !== i) })}
                  moveBy={(dir) => upd({ actions: move(d.actions, i, dir) })}
                />
              </div>
            ))}
          </div>
          <FieldError messages={errs('/actions')} />
          <button type="button" className="btn btn-small" onClick={() => upd({ actions: [...d.actions, newAction()] })}>
            + Add action
          </button>
        </fieldset>

        {localCount > 0 && (
          <p className="field-error" role="alert" tabIndex={-1}>
            Fix the {localCount === 1 ? 'field' : `${localCount} fields`} marked above.
          </p>
        )}
        {general && (
          <p className="field-error" role="alert" tabIndex={-1}>
            {general}
          </p>
        )}
        {unanchored.length > 0 && (
          <ul className="field-error" role="alert" tabIndex={-1}>
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
    </TemplateHintsContext.Provider>
  );
}
