/**
 * WebSocket mocks (docs/websocket.md): an upgrade to a `WS` endpoint at any mock address (`/m/<ref>`,
 * a mock host, the root of `serve --file`) becomes a socket whose `connect`, `message` and `close`
 * run the endpoint's rules for that trigger through the same engine as HTTP — conditions on the
 * upgrade request and the message, actions, sequences per mock session — and whose steps send
 * messages and may close it. Every connect, message in and out, and close is a log entry.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { nextSeq } from '../../domain/ids.js';
import type { CompiledEndpoint, CompiledProject } from '../compile.js';
import { MockContext, MockRequestView } from '../context.js';
import type { Engine } from '../engine.js';
import { serveGraphqlWs } from '../graphql/transports.js';
import { isoAt } from '../mock-body.js';
import type { HotState } from '../ports.js';
import type { RequestLog } from '../request-log.js';
import type { LogRecord } from '../request-log-entry.js';
import { type LogEntryFn, socketEvents } from './events.js';
import { type LiveSocket, MAX_BUFFERED, type SocketHub } from './hub.js';

export interface WsLimits {
  messageBytes: number;
  socketsPerProject: number;
  idleMs: number;
}

export interface WsDeps {
  engine: Engine;
  /** the collections of GraphQL subscriptions' bindings */
  hot: HotState;
  requestLog: RequestLog;
  log: Logger;
  hub: SocketHub;
  limits: WsLimits;
  renderLimit?: number;
  iterationLimit?: number;
}

const SESSION_HEADER = 'x-mockyard-session';
/** browsers cannot set headers on a WebSocket: the session may come as this query parameter */
const SESSION_QUERY = 'mockyard-session';

function refuse(socket: Duplex, status: number, reason: string, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.on('error', () => {});
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const text = (data: RawData): string =>
  Buffer.isBuffer(data)
    ? data.toString('utf8')
    : Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data).toString('utf8');

export function createWsHandler(deps: WsDeps) {
  const { engine, requestLog, log, hub, limits } = deps;
  // `ws` is loaded on the first upgrade: a service without sockets never holds it (a few MB)
  let wss: WebSocketServer | null = null;
  let loading: Promise<WebSocketServer> | null = null;
  const load = () =>
    (loading ??= import('ws').then(({ WebSocketServer: Server }) => {
      wss = new Server({
        noServer: true,
        maxPayload: limits.messageBytes,
        perMessageDeflate: false,
        // GraphQL subscriptions speak graphql-transport-ws; a WS mock takes the first protocol offered
        handleProtocols: (protocols) =>
          protocols.has('graphql-transport-ws') ? 'graphql-transport-ws' : (protocols.values().next().value ?? false),
      });
      return wss;
    }));
  /** Completes the upgrade once `ws` is loaded (at once after the first). */
  function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, done: (ws: WebSocket) => void): void {
    if (wss) {
      wss.handleUpgrade(req, socket, head, done);
      return;
    }
    load().then(
      (server) => {
        if (socket.destroyed) return;
        server.handleUpgrade(req, socket, head, done);
      },
      (err) => {
        log.error({ err }, 'ws could not be loaded');
        refuse(socket, 503, 'Service Unavailable', 'unavailable', 'The service is temporarily unavailable');
      },
    );
  }

  function upgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    path: string,
    query: string,
    ref: string,
    slug: string | null,
    byPath: boolean,
  ): void {
    const { projects } = engine;
    const found =
      slug !== null ? projects.projectBySlug(slug) : byPath ? projects.projectByRef(ref) : projects.project(ref);
    const go = (p: CompiledProject | null) => accept(req, socket, head, path, query, p);
    if (found instanceof Promise)
      found.then(go, (err) => {
        log.error({ err }, 'mock project could not be loaded');
        refuse(socket, 503, 'Service Unavailable', 'unavailable', 'The service is temporarily unavailable');
      });
    else go(found);
  }

  function accept(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    path: string,
    query: string,
    project: CompiledProject | null,
  ): void {
    if (!project) {
      refuse(socket, 404, 'Not Found', 'not_found', 'No such project');
      return;
    }
    const match = project.router.match('WS', path);
    const gqlEp = match ? null : project.router.match('POST', path)?.value;
    if (
      !match &&
      gqlEp?.graphql &&
      String(req.headers['sec-websocket-protocol'] ?? '').includes('graphql-transport-ws')
    ) {
      const gql = gqlEp.graphql;
      handleUpgrade(req, socket, head, (ws) => {
        const session = String(
          req.headers['x-mockyard-session'] ?? new URLSearchParams(query).get('mockyard-session') ?? '',
        );
        const context = () => {
          const view = new MockRequestView('GET', path, query, req.headers, req.rawHeaders);
          const ctx = new MockContext(
            view,
            req.headers['x-mockyard-seed'] === undefined ? null : String(req.headers['x-mockyard-seed']),
            Math.random,
            deps.renderLimit,
          );
          ctx.config = project.config;
          return ctx;
        };
        serveGraphqlWs(ws, { project, gql, session, hot: deps.hot, hub }, context);
      });
      return;
    }
    if (!match) {
      refuse(socket, 404, 'Not Found', 'mock_not_found', 'No WebSocket endpoint matches this path');
      return;
    }
    if (hub.count(project.id) >= limits.socketsPerProject) {
      refuse(
        socket,
        429,
        'Too Many Requests',
        'limit_exceeded',
        `At most ${limits.socketsPerProject} open sockets per project`,
      );
      return;
    }
    handleUpgrade(req, socket, head, (ws) => open(ws, req, path, query, project, match.value, match.params));
  }

  function open(
    ws: WebSocket,
    req: IncomingMessage,
    path: string,
    query: string,
    project: CompiledProject,
    ep: CompiledEndpoint,
    params: Record<string, string>,
  ): void {
    const id = randomUUID();
    const queryParams = new URLSearchParams(query);
    const session = String(req.headers[SESSION_HEADER] ?? queryParams.get(SESSION_QUERY) ?? '');
    const seedHeader = req.headers['x-mockyard-seed'];
    const seed = seedHeader === undefined ? null : String(seedHeader);
    const channels = new Set(['default', ...ep.channels]);
    let idle: NodeJS.Timeout | null = null;
    // one timer per socket, re-armed only when it fires early: a message just notes the time
    let lastActive = performance.now();
    const check = () => {
      const quiet = performance.now() - lastActive;
      if (quiet >= limits.idleMs) return ws.close(1000, 'idle');
      idle = setTimeout(check, limits.idleMs - quiet);
      idle.unref();
    };
    const touch = () => {
      lastActive = performance.now();
      if (idle === null) check();
    };
    const entry: LogEntryFn = (event, direction, body, rules, ruleId, started) => {
      const record: LogRecord = {
        seq: nextSeq(),
        at: isoAt(performance.now()),
        method: 'WS',
        path,
        query,
        rawHeaders: req.rawHeaders,
        body: body.length > 64 * 1024 ? body.slice(0, 64 * 1024) : body,
        endpointId: ep.id,
        ruleId,
        statusCode: 101,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        actions: [],
        rules,
        proxied: false,
        session,
        error: '',
        warning: '',
        sentHeaders: null,
        sentBody: '',
        sentShared: false,
        sentStep: null,
        sentDelay: 0,
        kind: 'ws',
        direction,
        event,
        socketId: id,
      };
      requestLog.record(project.id, record);
    };
    const live: LiveSocket = {
      id,
      projectId: project.id,
      endpointId: ep.id,
      path,
      session,
      channels,
      connectedAt: new Date().toISOString(),
      ws,
      send(out) {
        if (ws.readyState !== ws.OPEN) return;
        if (ws.bufferedAmount > MAX_BUFFERED) {
          ws.close(1008, 'the client does not read');
          return;
        }
        ws.send(out);
        entry('message', 'out', out, [], null, performance.now());
      },
    };
    hub.add(live);
    touch();

    const run = socketEvents({ ws, req, path, query, project, ep, params, session, seed, live, entry, deps });

    ws.on('message', (data, isBinary) => {
      touch();
      run('message', isBinary ? Buffer.from(data as Buffer).toString('base64') : text(data));
    });
    ws.on('error', () => {});
    ws.on('close', () => {
      if (idle) clearTimeout(idle);
      hub.remove(live);
      run('close');
    });
    run('connect');
  }

  return {
    /** `/m/<ref>/…` */
    byPath(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const pathPart = q === -1 ? url : url.slice(0, q);
      const slash = pathPart.indexOf('/', 3);
      let ref = slash === -1 ? pathPart.slice(3) : pathPart.slice(3, slash);
      try {
        ref = decodeURIComponent(ref);
      } catch {
        // kept raw: it will not be found
      }
      upgrade(
        req,
        socket,
        head,
        slash === -1 ? '/' : pathPart.slice(slash),
        q === -1 ? '' : url.slice(q + 1),
        ref,
        null,
        true,
      );
    },
    /** the project known by where the request came: its mock host, or the root of serve --file */
    at(req: IncomingMessage, socket: Duplex, head: Buffer, ref: string, slug: string | null): void {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      upgrade(
        req,
        socket,
        head,
        (q === -1 ? url : url.slice(0, q)) || '/',
        q === -1 ? '' : url.slice(q + 1),
        ref,
        slug,
        false,
      );
    },
    refuse,
    close(): void {
      hub.closeAll();
      wss?.close();
    },
  };
}

export type WsHandler = ReturnType<typeof createWsHandler>;
