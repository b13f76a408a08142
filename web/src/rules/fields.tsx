/**
 * The rule editor's shared form pieces: a labelled field (with its errors and hint linked by
 * aria-describedby), a number field, and the move-up / move-down / remove toolbar of a list item.
 */
import { type HTMLAttributes, type ReactNode, useId } from 'react';
import { moved } from '../components/drag-reorder';
import { FieldError } from '../components/ui';

/** The messages (local and server) at a JSON pointer of the rule. */
export type Errs = (path: string) => string[];

/** `list` with item i moved one place up (-1) or down (1). */
export function move<T>(list: T[], i: number, d: -1 | 1): T[] {
  const j = i + d;
  return j < 0 || j >= list.length ? list : moved(list, i, j);
}

export function Field({
  label,
  errors,
  children,
  className,
  hint,
}: {
  label: string;
  errors?: string[];
  /** the third argument is for aria-describedby: the ids of the hint and of the error message */
  children: (id: string, invalid: boolean, hintId: string | undefined) => ReactNode;
  className?: string;
  hint?: ReactNode;
}) {
  const id = useId();
  const invalid = (errors?.length ?? 0) > 0;
  const hintId = hint ? `${id}-hint` : undefined;
  // the control is described by its hint and, when it is wrong, by the visible message saying why
  const describedBy = [hintId, invalid ? `${id}-err` : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      {children(id, invalid, describedBy)}
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      <FieldError id={`${id}-err`} messages={errors} />
    </div>
  );
}

/** A whole number typed as text (kept as typed; draft.ts checks it). */
export function NumberField({
  label,
  value,
  errors,
  onChange,
}: {
  label: string;
  value: string;
  errors: string[];
  onChange: (value: string) => void;
}) {
  return (
    <Field label={label} errors={errors}>
      {(id, invalid, describedBy) => (
        <input
          id={id}
          inputMode="numeric"
          value={value}
          aria-invalid={invalid}
          aria-describedby={describedBy}
          onChange={(e) => onChange(e.target.value.trim())}
        />
      )}
    </Field>
  );
}

/** Move up, move down and remove buttons of item `i` of `count` (a step, an action). */
export function ReorderTools({
  noun,
  i,
  count,
  moveBy,
  remove,
  removeDisabled = false,
  grip,
}: {
  noun: string;
  i: number;
  count: number;
  moveBy: (d: -1 | 1) => void;
  remove: () => void;
  removeDisabled?: boolean;
  /** drag props of the grip (drag-reorder.ts) */
  grip?: HTMLAttributes<HTMLSpanElement>;
}) {
  return (
    <div className="step-tools">
      {grip && (
        <span className="drag-grip" title={`Drag to reorder ${noun}s`} aria-hidden="true" {...grip}>
          ⠿
        </span>
      )}
      <button
        type="button"
        className="btn btn-small btn-ghost"
        aria-label={`Move ${noun} ${i + 1} up`}
        disabled={i === 0}
        onClick={() => moveBy(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="btn btn-small btn-ghost"
        aria-label={`Move ${noun} ${i + 1} down`}
        disabled={i === count - 1}
        onClick={() => moveBy(1)}
      >
        ↓
      </button>
      <button
        type="button"
        className="btn btn-small btn-danger-ghost"
        aria-label={`Remove ${noun} ${i + 1}`}
        disabled={removeDisabled}
        onClick={remove}
      >
        Remove
      </button>
    </div>
  );
}
