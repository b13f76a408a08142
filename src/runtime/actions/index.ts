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
const isSteps = (r: Steps<ActionResult> | Deferred<unknown>): r is Steps<ActionResult> =>
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

  /** Runs a rule's actions; the response one of them applied, if any (evaluation stops there). */
  *run(actions: readonly CompiledAction[]): Steps<ActionResult> {
    const { now } = this.scope.deps;
    for (const a of actions) {
      if (this.stopped) {
        this.outcomes.push({ type: a.type, ok: false, error: 'skipped: an earlier action failed with onError stop' });
        continue;
      }
      const t = now();
      if (this.deadline === 0) this.deadline = t + ACTION_BUDGET_MS;
      const left = this.deadline - t;
      if (left <= 0) {
        this.outcomes.push({ type: a.type, ok: false, error: 'skipped: the 10 s action budget is spent' });
        continue;
      }
      try {
        const runner = RUNNERS[a.type] as ActionRunner<CompiledAction>;
        const run = runner(a, this.scope, left);
        if (isSteps(run)) {
          const result = yield* run;
          this.outcomes.push(OK[a.type]);
          if (result) return result;
        } else {
          yield run;
          this.outcomes.push(OK[a.type]);
        }
      } catch (err) {
        const timeout = err instanceof EgressError && err.kind === 'timeout';
        const known = err instanceof EgressError || err instanceof CapExceeded;
        if (!known) this.scope.deps.log.warn({ err }, 'action failed');
        this.outcomes.push({ type: a.type, ok: false, error: known ? err.message : 'failed: internal error' });
        // a timeout never stops the pipeline (docs/api.md "Rules")
        if (a.stop && !timeout) this.stopped = true;
      }
    }
  }
}
