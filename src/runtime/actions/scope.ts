/**
 * What one request's actions share: the evaluation context, the store and egress client, the
 * caps, the request's session and hop count, and the clock.
 */
import type { Logger } from 'pino';
import type { Caps } from '../../domain/constants.js';
import type { CompiledAction } from '../compile.js';
import type { MockContext } from '../context.js';
import type { Egress } from '../egress.js';
import type { RuntimeStore } from '../ports.js';
import type { Deferred, Steps } from '../steps.js';

export interface ActionDeps {
  readonly store: RuntimeStore;
  readonly egress: Egress;
  readonly log: Logger;
  readonly caps: Caps;
  readonly now: () => number;
  /** where `broadcast` sends (the WebSocket hub, docs/websocket.md); absent: nothing is sent */
  readonly channels?: { publish(projectId: string, channel: string, session: string, text: string): number };
}

/** One request's evaluation, as its actions see it. */
export interface ActionScope {
  readonly deps: ActionDeps;
  readonly ctx: MockContext;
  readonly projectId: string;
  readonly endpointId: string;
  readonly session: string;
  readonly hops: number;
}

/** What an action that succeeded may ask for: the response it applies as the mock's answer. */
// biome-ignore lint/suspicious/noConfusingVoidType: a generator that ends without `return` returns void
export type ActionResult = void | { applied: { status: number; body: string; contentType: string } };

/**
 * An action type's behaviour: a step function (it yields what it waits for, see steps.ts), or, for
 * an action that waits once and applies no answer, that one wait itself (a storage write: one
 * generator fewer to make and resume a request, bench S5).
 */
export type ActionRunner<A extends CompiledAction> = (
  action: A,
  scope: ActionScope,
  msLeft: number,
) => Steps<ActionResult> | Deferred<unknown>;
