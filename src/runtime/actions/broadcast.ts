/**
 * `broadcast`: the rendered body sent to every WebSocket on a channel of the project, in this
 * request's mock session (docs/websocket.md); on other processes too, through the channel hub.
 */
import type { CompiledAction } from '../compile.js';
import type { ActionRunner } from './scope.js';

type Broadcast = Extract<CompiledAction, { type: 'broadcast' }>;

// biome-ignore lint/correctness/useYield: an action that never waits is a step function all the same
export const broadcast: ActionRunner<Broadcast> = function* (a, { deps, ctx, projectId, session }) {
  deps.channels?.publish(projectId, a.channel, session, a.body(ctx));
};
