/**
 * `store_variable` and `delete_variable`: a value kept for the request's session in the endpoint's
 * storage (`{{endpoint.NAME}}`) or the project's (`{{project.NAME}}`, shared by its endpoints:
 * scenarios, docs/stateful-mocks.md). The value is rendered and written under the storage's lock, so
 * concurrent appends (`{{endpoint.log}}x`) lose nothing; one past the caps of docs/limits.md stores
 * nothing.
 */
import type { Caps } from '../../domain/constants.js';
import type { StorageScope } from '../../domain/model.js';
import type { Deferred, StepSink } from '../../shared/steps.js';
import type { CompiledAction } from '../compile.js';
import type { HotState, StorageOwner, StorageWrite } from '../ports.js';
import { CapExceeded } from '../template.js';
import type { ActionRunner, ActionScope } from './scope.js';

type StoreVariable = Extract<CompiledAction, { type: 'store_variable' }>;
type DeleteVariable = Extract<CompiledAction, { type: 'delete_variable' }>;

/** The storage a scope names, and where the context keeps its view of it. */
function owner(scope: StorageScope, s: ActionScope): StorageOwner {
  return scope === 'project' ? { kind: 'project', id: s.projectId } : { kind: 'endpoint', id: s.endpointId };
}

function keep(ctx: ActionScope['ctx'], scope: StorageScope, current: Map<string, string>): void {
  if (scope === 'project') ctx.projectStorage = current;
  else ctx.storage = current;
}

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

/**
 * A storage write as the action pipeline waits for it: the runner's one wait (no step function of its
 * own), handed to the store's group commit with itself as the waiter, no promise. Once committed, the
 * context keeps the storage as this write left it, then the pipeline steps on.
 */
class StorageUpdate implements Deferred<Map<string, string>>, StepSink<Map<string, string>> {
  private sink: StepSink<Map<string, string>> | null = null;
  constructor(
    private readonly ctx: ActionScope['ctx'],
    private readonly scope: StorageScope,
    private readonly hot: HotState,
    private readonly owner: StorageOwner,
    private readonly session: string,
    private readonly write: StorageWrite,
  ) {}
  into(sink: StepSink<Map<string, string>>): void {
    this.sink = sink;
    this.hot.updateStorageInto(this.owner, this.session, this.write, this);
  }
  resolve(stored: Map<string, string>): void {
    keep(this.ctx, this.scope, stored);
    this.sink?.resolve(stored);
  }
  reject(err: unknown): void {
    this.sink?.reject(err);
  }
}

export const storeVariable: ActionRunner<StoreVariable> = (a, scope) => {
  const { ctx, deps } = scope;
  const write: StorageWrite = (current) => {
    keep(ctx, a.scope, current);
    const value = a.value(ctx);
    checkStored(deps.caps, current, a.name, value);
    return [[a.name, value]];
  };
  return new StorageUpdate(ctx, a.scope, deps.store.hot, owner(a.scope, scope), scope.session, write);
};

export const deleteVariable: ActionRunner<DeleteVariable> = (a, scope) => {
  const { ctx, deps } = scope;
  const write: StorageWrite = () => [[a.name, null]];
  return new StorageUpdate(ctx, a.scope, deps.store.hot, owner(a.scope, scope), scope.session, write);
};
