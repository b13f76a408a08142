/** One condition of a rule: target, key, operator and value. */
import { FieldError } from '../components/ui';
import { CONDITION_TARGETS, OPERATORS } from '../types';
import { type CondDraft, needsKey, needsValue, OPERATOR_LABELS, TARGET_LABELS } from './draft';
import { type Errs, Field } from './fields';

const KEY_LABELS: Partial<Record<CondDraft['target'], string>> = {
  header: 'Header name',
  query: 'Parameter',
  endpoint: 'Stored name',
  project: 'Stored name',
  vars: 'Variable name',
};
const KEY_PLACEHOLDERS: Partial<Record<CondDraft['target'], string>> = {
  header: 'x-tier',
  query: 'page',
  endpoint: 'cart',
  project: 'cart',
  vars: 'tier',
};

export function ConditionRow({
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
        <Field label={KEY_LABELS[c.target] ?? 'JSON path'} errors={errs(`${p}/key`)}>
          {(id, invalid, describedBy) => (
            <input
              id={id}
              value={c.key}
              spellCheck={false}
              placeholder={KEY_PLACEHOLDERS[c.target] ?? 'user.id'}
              aria-invalid={invalid}
              aria-describedby={describedBy}
              onChange={(e) => set({ key: e.target.value })}
            />
          )}
        </Field>
      )}
      <Field label="Operator" errors={errs(`${p}/operator`)}>
        {(id, invalid, describedBy) => (
          <select
            id={id}
            value={c.operator}
            aria-invalid={invalid}
            aria-describedby={describedBy}
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
          {(id, invalid, describedBy) => (
            <input
              id={id}
              value={c.value}
              spellCheck={false}
              inputMode={c.operator === 'less_than' ? 'decimal' : undefined}
              aria-invalid={invalid}
              aria-describedby={describedBy}
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
