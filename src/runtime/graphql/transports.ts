/**
 * GraphQL subscriptions' transports (docs/graphql.md): `graphql-transport-ws` on a WebSocket to the
 * GraphQL endpoint's path, and `graphql-sse`'s distinct-connections mode (a POST that accepts
 * `text/event-stream` gets its answers as `next` events, then `complete`). Queries and mutations
 * work over both too (one `next`).
 */
import type { ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { CompiledProject } from '../compile.js';
import type { MockContext } from '../context.js';
import type { HotState } from '../ports.js';
import { CORS, CSP, MOCK_CSP } from '../respond.js';
import type { SocketHub } from '../ws/hub.js';
import {
  type CompiledGraphql,
  execution,
  type Publish,
  parseOperation,
  type RunCollection,
  readRequest,
} from './execute.js';
import { collectionChannel, operationType, subscribe, validationErrors } from './subscriptions.js';

export interface GraphqlScope {
  project: CompiledProject;
  gql: CompiledGraphql;
  session: string;
  hot: HotState;
  hub: SocketHub;
}

export function collectionRunner(s: GraphqlScope, ctx: MockContext): { run: RunCollection; publish: Publish } {
  const { project, session, hot, hub } = s;
  return {
    run: (name, cmd) => {
      const def = project.collections.get(name);
      if (!def) return Promise.resolve({ kind: 'missing' });
      return hot.collection(
        { projectId: project.id, name, idField: def.idField, seed: () => def.render(ctx), base: def.base(), session },
        cmd,
      );
    },
    publish: (collection, op, item) => {
      if (project.collections.get(collection)?.subscribed.has(op))
        hub.publish(project.id, collectionChannel(collection, op), session, JSON.stringify(item));
    },
  };
}

/** `graphql-transport-ws` on a socket: connection_init/ack, ping/pong, subscribe → next… complete. */
export function serveGraphqlWs(ws: WebSocket, s: GraphqlScope, context: () => MockContext): void {
  const live = new Map<string, () => void>();
  let acked = false;
  const send = (m: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
  };
  const init = setTimeout(() => !acked && ws.close(4408, 'Connection initialisation timeout'), 10_000);
  init.unref();
  ws.on('message', async (data) => {
    let m: {
      type?: string;
      id?: string;
      payload?: { query?: string; variables?: Record<string, unknown>; operationName?: string };
    };
    try {
      m = JSON.parse(String(data));
    } catch {
      ws.close(4400, 'Invalid message');
      return;
    }
    if (m.type === 'connection_init') {
      if (acked) return ws.close(4429, 'Too many initialisation requests');
      acked = true;
      return send({ type: 'connection_ack' });
    }
    if (m.type === 'ping') return send({ type: 'pong' });
    if (m.type === 'pong') return;
    if (!acked) return ws.close(4401, 'Unauthorized');
    const id = m.id ?? '';
    if (m.type === 'complete') {
      live.get(id)?.();
      live.delete(id);
      return;
    }
    if (m.type !== 'subscribe') return ws.close(4400, `Unknown message type ${String(m.type)}`);
    if (live.has(id)) return ws.close(4409, `Subscriber for ${id} already exists`);
    const ctx = context();
    const p = m.payload ?? {};
    const parsed = parseOperation({
      query: typeof p.query === 'string' ? p.query : '',
      variables: p.variables !== null && typeof p.variables === 'object' ? p.variables : {},
      operationName: typeof p.operationName === 'string' && p.operationName !== '' ? p.operationName : undefined,
    });
    if (!parsed.ok) return send({ type: 'error', id, payload: [{ message: parsed.message }] });
    const errors = validationErrors(s.gql, parsed.doc);
    if (errors.length > 0) return send({ type: 'error', id, payload: errors });
    const { run, publish } = collectionRunner(s, ctx);
    if (operationType(parsed.doc, parsed.req.operationName) === 'subscription') {
      live.set(
        id,
        subscribe(s.hub, s.project.id, s.session, s.gql, parsed.req, parsed.doc, ctx, run, (r) =>
          send({ type: 'next', id, payload: r }),
        ),
      );
      return;
    }
    const r = await execution(s.gql, parsed.doc, parsed.req, ctx, run, undefined, publish);
    send({ type: 'next', id, payload: r });
    send({ type: 'complete', id });
  });
  ws.on('close', () => {
    clearTimeout(init);
    for (const stop of live.values()) stop();
    live.clear();
  });
}

/** `graphql-sse` distinct connections: the request's answers as `next` events, then `complete`. */
export async function serveGraphqlSse(res: ServerResponse, s: GraphqlScope, ctx: MockContext): Promise<number> {
  const parsed = readRequest(ctx.req, () => ctx.json());
  const head = () =>
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      [CORS]: '*',
      [CSP]: MOCK_CSP,
    });
  const event = (name: string, data: unknown) =>
    res.write(`event: ${name}\ndata: ${data === undefined ? '' : JSON.stringify(data)}\n\n`);
  if (!parsed.ok) {
    head();
    event('next', { errors: [{ message: parsed.message }] });
    event('complete', undefined);
    res.end();
    return 200;
  }
  const errors = validationErrors(s.gql, parsed.doc);
  head();
  if (errors.length > 0) {
    event('next', { errors });
    event('complete', undefined);
    res.end();
    return 200;
  }
  const { run, publish } = collectionRunner(s, ctx);
  if (operationType(parsed.doc, parsed.req.operationName) !== 'subscription') {
    event('next', await execution(s.gql, parsed.doc, parsed.req, ctx, run, undefined, publish));
    event('complete', undefined);
    res.end();
    return 200;
  }
  const stop = subscribe(s.hub, s.project.id, s.session, s.gql, parsed.req, parsed.doc, ctx, run, (r) =>
    event('next', r),
  );
  const keepAlive = setInterval(() => res.write(':\n\n'), 15_000);
  keepAlive.unref();
  await new Promise<void>((resolve) => res.on('close', resolve));
  clearInterval(keepAlive);
  stop();
  return 200;
}
