/**
 * GraphQL subscriptions (docs/graphql.md): a subscription's top-level field listens to the channel
 * of its name (fed by `broadcast` and `POST …/channels/:channel/messages`, whose body is the field's
 * value), or, when bound (`"Subscription.userCreated": {collection, operation}`), to the writes of that
 * collection in the same mock session. Each event is executed as the subscription's answer — the
 * event is the field's value, its other fields generated — over `graphql-transport-ws` and
 * `graphql-sse` (runtime/graphql/transports.ts).
 */
import type { DocumentNode } from 'graphql';
import { graphqlLib } from '../../domain/graphql.js';
import type { EvalContext } from '../types.js';
import type { ChannelListener, SocketHub } from '../ws/hub.js';
import { type CompiledGraphql, execution, type GraphqlRequest, type RunCollection } from './execute.js';

/** The channel a bound collection's writes are published on (never a channel a user can name). */
export const collectionChannel = (collection: string, operation: string) =>
  `\u0000collection:${collection}:${operation}`;

export type OperationResult = { data?: unknown; errors?: unknown[] };

/** What a request asks for: one answer (query, mutation), or a stream of them (subscription). */
export function operationType(doc: DocumentNode, operationName: string | undefined): string | undefined {
  const ops = doc.definitions.filter((d) => d.kind === 'OperationDefinition');
  const op = (operationName ? ops.find((o) => o.name?.value === operationName) : ops[0]) ?? ops[0];
  return op?.kind === 'OperationDefinition' ? op.operation : undefined;
}

/** The channels of a subscription's top-level fields: [field, channel]. */
function channels(gql: CompiledGraphql, doc: DocumentNode, operationName: string | undefined): [string, string][] {
  const ops = doc.definitions.filter((d) => d.kind === 'OperationDefinition');
  const op = (operationName ? ops.find((o) => o.name?.value === operationName) : ops[0]) ?? ops[0];
  if (op?.kind !== 'OperationDefinition') return [];
  return op.selectionSet.selections.flatMap((s) => {
    if (s.kind !== 'Field') return [];
    const b = gql.bindings.get(`Subscription.${s.name.value}`);
    return [[s.name.value, b ? collectionChannel(b.collection, b.operation) : s.name.value] as [string, string]];
  });
}

/**
 * Listens for a subscription's events: `emit` gets each executed answer; the function returned stops
 * it. `projectId`, `session`: whose channels.
 */
export function subscribe(
  hub: SocketHub,
  projectId: string,
  session: string,
  gql: CompiledGraphql,
  req: GraphqlRequest,
  doc: DocumentNode,
  ctx: EvalContext,
  run: RunCollection,
  emit: (r: OperationResult) => void,
): () => void {
  const stops = channels(gql, doc, req.operationName).map(([field, channel]) => {
    const l: ChannelListener = {
      session,
      receive(text) {
        let value: unknown = text;
        try {
          value = JSON.parse(text);
        } catch {
          // a text event is the field's value as it is
        }
        execution(gql, doc, req, ctx, run, { [field]: value }).then(emit, (e) =>
          emit({ errors: [{ message: e instanceof Error ? e.message : String(e) }] }),
        );
      },
    };
    return hub.listen(projectId, channel, l);
  });
  return () => {
    for (const s of stops) s();
  };
}

/** The validation errors of a request against the schema (none: []). */
export function validationErrors(gql: CompiledGraphql, doc: DocumentNode): unknown[] {
  return graphqlLib()
    .validate(gql.schema, doc)
    .map((e) => e.toJSON());
}
