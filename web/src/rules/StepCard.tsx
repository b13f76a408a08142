/** One step of a rule's response: status, count, delays, fault, headers and body. */
import type { HTMLAttributes } from 'react';
import { isJsonType, JsonEditor } from '../components/JsonEditor';
import { KeyValueEditor } from '../components/KeyValueEditor';
import { FieldError } from '../components/ui';
import { FAULTS, type Fault } from '../types';
import { FAULT_LABELS, type StepDraft } from './draft';
import { type Errs, Field, NumberField, ReorderTools } from './fields';
import { StreamEditor } from './StreamEditor';

const FAULT_HINTS: Record<'' | Fault, string> = {
  '': 'Or fail at the network level instead of answering, to test timeouts, retries and error handling.',
  connection_reset:
    'After the delay, the TCP connection is reset: the client sees ECONNRESET. Status and body are not sent.',
  empty_response: 'After the delay, the connection closes without a byte: the client sees “socket hang up”.',
  malformed_body:
    'After the delay, a 200 status line, then bytes that are not a valid chunked body, then close: a parse error in the client.',
};

export function StepCard({
  s,
  i,
  count,
  set,
  remove,
  moveBy,
  grip,
  domId,
  errs,
  defaultContentType,
}: {
  s: StepDraft;
  i: number;
  count: number;
  set: (patch: Partial<StepDraft>) => void;
  remove: () => void;
  moveBy: (d: -1 | 1) => void;
  grip?: HTMLAttributes<HTMLSpanElement>;
  domId?: string;
  errs: Errs;
  defaultContentType: string;
}) {
  const p = `/response/steps/${i}`;
  const ct = s.headers.find((h) => h.key.trim().toLowerCase() === 'content-type')?.value ?? defaultContentType;
  return (
    <fieldset className="step" id={domId}>
      <legend>Step {i + 1}</legend>
      <ReorderTools
        grip={grip}
        noun="step"
        i={i}
        count={count}
        moveBy={moveBy}
        remove={remove}
        removeDisabled={count === 1}
      />
      <div className="grid-step">
        <NumberField
          label="Status"
          value={s.statusCode}
          errors={errs(`${p}/statusCode`)}
          onChange={(statusCode) => set({ statusCode })}
        />
        <NumberField label="Count" value={s.count} errors={errs(`${p}/count`)} onChange={(count) => set({ count })} />
        <NumberField
          label="Delay (ms)"
          value={s.delayMs}
          errors={errs(`${p}/delayMs`)}
          onChange={(delayMs) => set({ delayMs })}
        />
        <NumberField
          label="Delay max (ms)"
          value={s.delayMaxMs}
          errors={errs(`${p}/delayMaxMs`)}
          onChange={(delayMaxMs) => set({ delayMaxMs })}
        />
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
      <StreamEditor
        value={s.stream}
        onChange={(stream) => set({ stream })}
        errors={errs(`${p}/stream`)}
        stepLabel={`step ${i + 1}`}
      />
      <FieldError messages={errs(p)} />
    </fieldset>
  );
}
