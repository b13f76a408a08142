/**
 * A rule's actions, in order (docs/api.md "Rules"): the request's 10 s budget and `onError` are handled
 * here, once, for every action type; each type's behaviour is in its own file.
 *
 * - Past the budget the remaining actions are skipped (and logged as skipped).
 * - A failure with `onError: "stop"` skips every later action of the request; a timeout never
 *   stops the pipeline. A failure is an egress error (bad URL, blocked target, refused connection,
 *   DNS) or a cap of docs/limits.md (`render_too_large`, `value_too_large`, `too_many_names`);
 *   anything else is logged and reported as an internal error.
 */
import type { ActionOutcome } from '../../domain/model.js';
import type { CompiledAction } from '../compile.js';
import { EgressError } from '../egress.js';
import type { Deferred, Steps } from '../steps.js';
import { CapExceeded } from '../template.js';
import { broadcast } from './broadcast.js';
import { httpRequest } from './http-request.js';
import type { ActionResult, ActionRunner, ActionScope } from './scope.js';
import { setVariable } from './set-variable.js';
import { deleteVariable, storeVariable } from './store-variable.js';

export { MAX_HOPS } from './http-request.js';
export type { ActionDeps, ActionScope } from './scope.js';

/** Action pipeline budget of one request (docs/api.md "Rules"). */
export const ACTION_BUDGET_MS = 10_000;

const RUNNERS: { [T in CompiledAction['type']]: ActionRunner<Extract<CompiledAction, { type: T }>> } = {
  set_variable: setVariable,
  store_variable: storeVariable,
  delete_variable: deleteVariable,
  http_request: httpRequest,
  broadcast,
};

/** A runner's steps, not its one wait (see ActionRunner). */
export const isSteps = (r: Steps<ActionResult> | Deferred<unknown>): r is Steps<ActionResult> =>
  typeof (r as Deferred<unknown>).into !== 'function';

/** The outcome of an action that succeeded, one shared object per type (never mutated). */
const OK: Readonly<Record<ActionOutcome['type'], ActionOutcome>> = Object.freeze({
  set_variable: Object.freeze({ type: 'set_variable', ok: true }),
  store_variable: Object.freeze({ type: 'store_variable', ok: true }),
  delete_variable: Object.freeze({ type: 'delete_variable', ok: true }),
  http_request: Object.freeze({ type: 'http_request', ok: true }),
  broadcast: Object.freeze({ type: 'broadcast', ok: true }),
});

/** The action pipeline of one request, across the rules that match. */
export class ActionPipeline {
  /** outcomes in order, for the request log */
  readonly outcomes: ActionOutcome[] = [];
  private deadline = 0;
  private stopped = false;

  constructor(private readonly scope: ActionScope) {}

  /**
   * Starts action `a`: what to wait for (its steps, or its one wait), or null when there is nothing
   * to wait for — it was skipped, or failed at once (its outcome is recorded then).
   */
  start(a: CompiledAction): Steps<ActionResult> | Deferred<unknown> | null {
    if (this.stopped) {
      this.outcomes.push({ type: a.type, ok: false, error: 'skipped: an earlier action failed with onError stop' });
      return null;
    }
    const t = this.scope.deps.now();
    if (this.deadline === 0) this.deadline = t + ACTION_BUDGET_MS;
    const left = this.deadline - t;
    if (left <= 0) {
      this.outcomes.push({ type: a.type, ok: false, error: 'skipped: the 10 s action budget is spent' });
      return null;
    }
    try {
      return (RUNNERS[a.type] as ActionRunner<CompiledAction>)(a, this.scope, left);
    } catch (err) {
      this.fail(a, err);
      return null;
    }
  }

  /** Records that `a` succeeded. */
  done(a: CompiledAction): void {
    this.outcomes.push(OK[a.type]);
  }

  /** Records that `a` failed, and stops the pipeline if the action says so. */
  fail(a: CompiledAction, err: unknown): void {
    const timeout = err instanceof EgressError && err.kind === 'timeout';
    const known = err instanceof EgressError || err instanceof CapExceeded;
    if (!known) this.scope.deps.log.warn({ err }, 'action failed');
    this.outcomes.push({ type: a.type, ok: false, error: known ? err.message : 'failed: internal error' });
    // a timeout never stops the pipeline (docs/api.md "Rules")
    if (a.stop && !timeout) this.stopped = true;
  }
}
