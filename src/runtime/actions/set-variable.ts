/** `set_variable`: `{{vars.NAME}}` for the rest of this request. */
import type { CompiledAction } from '../compile.js';
import type { ActionRunner } from './scope.js';

type SetVariable = Extract<CompiledAction, { type: 'set_variable' }>;

// biome-ignore lint/correctness/useYield: an action that never waits is a step function all the same
export const setVariable: ActionRunner<SetVariable> = function* (a, { ctx }) {
  ctx.vars.set(a.name, a.value(ctx));
};
