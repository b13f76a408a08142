/**
 * A bound collection endpoint's answer written (docs/stateful-mocks.md); a write also reaches the
 * GraphQL subscriptions bound to the collection in the same session (docs/graphql.md).
 */
import type { CollectionAnswer } from './collection-answer.js';
import type { Exchange } from './exchange.js';
import { collectionChannel } from './graphql/subscriptions.js';
import { CORS, CSP, MOCK_CSP, type OutHeaders, writeAnswer } from './respond.js';
import type { StepSink } from './steps.js';
import type { SocketHub } from './ws/hub.js';

/** Writes the answer; the status written. */
export function writeCollectionAnswer(x: Exchange, a: CollectionAnswer, hub: SocketHub | undefined): number {
  const d = x.data;
  // only what a GraphQL subscription listens to: a publish reaches every process (a NOTIFY on PostgreSQL)
  if (d && a.status < 300 && hub && x.project?.collections.get(d.collection)?.subscribed.has(d.operation))
    hub.publish(x.projectId, collectionChannel(d.collection, d.operation), x.session, a.body || '{}');
  const headers: OutHeaders = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(a.body),
    [CORS]: '*',
    [CSP]: MOCK_CSP,
  };
  if (a.total !== undefined) {
    headers['x-total-count'] = a.total;
    headers['access-control-expose-headers'] = 'X-Total-Count';
  }
  return writeAnswer(x.res, a.status, headers, a.status === 204 ? '' : a.body, x);
}

/** Where a bound collection's answer goes (mock-server.ts): the request finished with the status written, or failed. */
export interface ReplyTo {
  finish(x: Exchange, status: number): void;
  /** writing the answer threw */
  broke(x: Exchange, err: unknown): void;
  /** the command failed */
  failed(x: Exchange, err: unknown): void;
}

/**
 * A bound collection's answer, written once its command is committed: `driveInto`'s sink, where a
 * promise of the answer and a `then` on it took a promise, two closures and a microtask a request.
 */
export class CollectionReply implements StepSink<CollectionAnswer> {
  constructor(
    private readonly x: Exchange,
    private readonly to: ReplyTo,
    private readonly hub: SocketHub | undefined,
  ) {}
  resolve(a: CollectionAnswer): void {
    try {
      this.to.finish(this.x, writeCollectionAnswer(this.x, a, this.hub));
    } catch (err) {
      this.to.broke(this.x, err);
    }
  }
  reject(err: unknown): void {
    this.to.failed(this.x, err);
  }
}
