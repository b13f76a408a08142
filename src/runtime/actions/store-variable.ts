/**
 * `store_variable`: `{{endpoint.NAME}}`, kept for the endpoint and the request's session. The
 * value is rendered and written under the endpoint's storage lock, so concurrent appends
 * (`{{endpoint.log}}x`) lose nothing; one past the caps of CONTRACT §10 stores nothing.
 */
import type { Caps } from '../../config.js';
import type { CompiledAction } from '../compile.js';
import { CapExceeded } from '../template.js';
import type { ActionRunner } from './scope.js';

type StoreVariable = Extract<CompiledAction, { type: 'store_variable' }>;

/** A value `store_variable` may keep, or the cap it breaks. */
export function checkStored(caps: Caps, current: Map<string, string>, name: string, value: string): void {
  // bytes ≥ characters, and ≤ 3 per character: measure only when it could matter
  if (value.length * 3 > caps.storedValueBytes && Buffer.byteLength(value) > caps.storedValueBytes) {
    throw new CapExceeded('value_too_large', `value_too_large: a stored value may hold ${caps.storedValueBytes} bytes`);
  }
  if (!current.has(name) && current.size >= caps.storedNames) {
    throw new CapExceeded('too_many_names', `too_many_names: at most ${caps.storedNames} stored names per session`);
  }
}

export const storeVariable: ActionRunner<StoreVariable> = function* (a, scope) {
  const { ctx, deps } = scope;
  ctx.storage = (yield deps.store.hot.updateStorage(scope.endpointId, scope.session, (current) => {
    ctx.storage = current;
    const value = a.value(ctx);
    checkStored(deps.caps, current, a.name, value);
    return [[a.name, value]];
  })) as Map<string, string>;
};
