/**
 * Wiring: config → store → runtime → one node:http server. `/m/*` goes straight to the mock
 * runtime; everything else to the Fastify app.
 */
import { timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import { buildApp } from './api/app.js';
import type { Config } from './config.js';
import { AppError, errorBody } from './domain/errors.js';
import { SLUG } from './domain/validate.js';
import { configureParser } from './interop/openapi-import.js';
import { Recorder } from './interop/recorder.js';
import { hostLines, isPlainTarget, normaliseTarget } from './request-target.js';
import { createEgress } from './runtime/egress.js';
import { Engine, limitEgress } from './runtime/engine.js';
import { keepResponseShape, keepTickShape } from './runtime/kept-shapes.js';
import { createMockHandler } from './runtime/mock-server.js';
import { RequestLog } from './runtime/request-log.js';
import { configureRedaction } from './runtime/request-log-entry.js';
import { endStreams, streamsStopped } from './runtime/stream.js';
import { createWsHandler } from './runtime/ws/handler.js';
import { SocketHub } from './runtime/ws/hub.js';
import { onceAWhile } from './shared/once-a-while.js';
import { ChangeFeed } from './store/change-feed.js';
import { openStore, type Store } from './store/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The one project served at the root path (`mockyard serve --file`, docs/testing.md). */
export interface RootProject {
  ownerId: string;
  projectId: string;
}

export interface StartOptions {
  /** makes the root project once the store is open, before the port listens */
  root?: (store: Store) => Promise<RootProject>;
}

export interface Running {
  url: string;
  /** the project served at the root path, when started with `root` */
  root: RootProject | null;
  port: number;
  store: Store;
  server: http.Server;
  /** record mode's writer (tests wait on `settled()`) */
  recorder: Recorder;
  log: Logger;
  close(): Promise<void>;
}

/**
 * `Host: <slug>.<domain>[:port]` (any letter case) → the slug; a host under the domain that is not
 * one DNS label (`a.b.<domain>`) → '' (no project: `404 mock_not_found`); any other host → null.
 */
export function mockHostMatcher(domain: string): (host: string | undefined) => string | null {
  const suffix = `.${domain}`;
  return (host) => {
    if (host === undefined || host.length <= suffix.length) return null;
    let h = host.toLowerCase();
    if (h.charCodeAt(h.length - 1) !== 93 /* ] */) {
      const colon = h.lastIndexOf(':');
      if (colon !== -1) h = h.slice(0, colon);
    }
    if (h.endsWith('.')) h = h.slice(0, -1);
    if (!h.endsWith(suffix)) return null;
    const slug = h.slice(0, h.length - suffix.length);
    return SLUG.test(slug) ? slug : '';
  };
}

/** A request refused before it is routed, in the API's error shape; the connection is closed after it. */
function badRequest(res: http.ServerResponse, message: string): void {
  const body = JSON.stringify(errorBody(new AppError('validation_failed', message, [{ path: '/', message }])));
  res.writeHead(400, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

function version(): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  } catch {
    return '0.0.0';
  }
}

export async function startServer(config: Config, logger?: Logger, opts: StartOptions = {}): Promise<Running> {
  const log =
    logger ??
    pino({
      level: config.logLevel,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
        censor: '[redacted]',
      },
    });
  // V8 would forget the shape of nextTick's objects when idle, and answer slower ever after (kept-shapes.ts)
  keepTickShape();
  configureParser({ timeoutMs: config.importTimeoutMs, nice: config.importNice });
  configureRedaction(config.redactHeaders);
  const store = await openStore(config.databaseUrl);
  // a failure the store recovers from by itself (a merge left for a later commit): logged, not
  // thrown, at most once a minute for each kind (one that persists would fail at every commit)
  store.on(
    'problem',
    onceAWhile((where, err, leftOut) => log.warn({ err, leftOut }, `store: ${where} failed; retried later`), 60_000),
  );
  // one bound for every outbound request of this process (actions and the fallback proxy)
  const egress = limitEgress(createEgress({ allowTargets: config.allowTargets }), config.maxEgressInFlight);
  const requestLog = new RequestLog(store, log, {
    keepPerProject: config.requestLogKeep,
    flushMs: config.requestLogFlushMs,
    shared: store.pgPool !== null,
  });
  await requestLog.start();
  const sockets = new SocketHub();
  const engine = new Engine({ store, egress, log, caps: config.caps, channels: sockets });
  let feed: ChangeFeed | null = null;
  if (store.pgPool !== null) {
    const changes = new ChangeFeed(store, {
      databaseUrl: config.databaseUrl,
      cachedVersions: () => engine.projects.cachedVersions(),
      invalidate: (id) => engine.projects.invalidate(id),
      log,
      onPush: (payload) => sockets.received(payload),
    });
    feed = changes;
    sockets.remote = (payload) => changes.push(payload);
    await feed.start();
  }
  const ws = createWsHandler({
    engine,
    hot: store.hot,
    requestLog,
    log,
    hub: sockets,
    limits: {
      messageBytes: config.caps.wsMessageBytes,
      socketsPerProject: config.caps.socketsPerProject,
      idleMs: config.caps.wsIdleMs,
    },
    renderLimit: config.caps.renderChars,
    iterationLimit: config.caps.templateIterations,
  });
  const recorder = new Recorder(store, log, config.maxRecordBytes);
  const mock = createMockHandler({
    engine,
    egress,
    requestLog,
    log,
    renderLimit: config.caps.renderChars,
    iterationLimit: config.caps.templateIterations,
    hot: store.hot,
    recorder,
    hub: sockets,
  });
  const mockHost = config.mockDomain ? mockHostMatcher(config.mockDomain) : null;
  const root = opts.root ? await opts.root(store) : null;
  // with mocks at the root (serve --file) every path is a mock path, `/m/…` included; only
  // `/m/<the files' project id>/…` keeps its meaning (docs/testing.md)
  const rootPrefix = root === null ? null : `/m/${root.projectId}`;
  const rootMockPath = (url: string): boolean =>
    rootPrefix !== null &&
    !(url === rootPrefix || url.startsWith(`${rootPrefix}/`) || url.startsWith(`${rootPrefix}?`));
  // at the root path, /api/* goes to the management API only with the admin token (a mock may
  // have its own /api/users); /healthz and /readyz stay the service's, for container health checks
  const adminBearer = config.adminToken ? Buffer.from(`Bearer ${config.adminToken}`) : null;
  const isAdmin = (auth: string | undefined) => {
    if (adminBearer === null || auth === undefined) return false;
    const given = Buffer.from(auth);
    return given.length === adminBearer.length && timingSafeEqual(given, adminBearer);
  };

  let server!: http.Server;
  const requestTimeout = config.requestTimeoutMs;
  const headersTimeout = Math.min(config.headersTimeoutMs, requestTimeout);
  const app = await buildApp({
    config,
    store,
    requestLog,
    sockets,
    ...(feed ? { changeFeed: () => (feed as ChangeFeed).status() } : {}),
    logger: log,
    webDir: config.webDir ?? path.join(ROOT, 'web', 'dist'),
    rootOwnerId: root?.ownerId ?? null,
    version: version(),
    serverFactory: (handler) => {
      server = http.createServer(
        {
          // slow clients are cut off (docs/limits.md)
          headersTimeout,
          requestTimeout,
          keepAliveTimeout: config.keepAliveTimeoutMs,
          maxHeaderSize: 32 * 1024,
          // how often the two timeouts above are checked (Node's default, 30 s, would let a
          // slow-loris client hold a socket for up to headersTimeout + 30 s)
          connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
        },
        (req, res) => {
          // one spelling of the target before any check or route (src/request-target.ts)
          let url = req.url ?? '/';
          let targetHost: string | null = null;
          if (!isPlainTarget(url)) {
            const t = normaliseTarget(url);
            if (t === null) return badRequest(res, 'The request target is neither a path nor an absolute URL');
            req.url = url = t.url;
            targetHost = t.host;
          }
          if (hostLines(req.rawHeaders) > 1) return badRequest(res, 'The request has more than one Host header');
          if (mockHost !== null) {
            const slug = mockHost(targetHost ?? req.headers.host);
            if (slug !== null) return mock.byHost(req, res, slug);
          }
          if (url.charCodeAt(0) === 47 && url.charCodeAt(1) === 109 && url.charCodeAt(2) === 47 && !rootMockPath(url))
            mock.byPath(req, res);
          else if (root === null) handler(req, res);
          else if (
            ((url.startsWith('/api/') || url === '/mcp' || url.startsWith('/mcp?')) &&
              isAdmin(req.headers.authorization)) ||
            url === '/healthz' ||
            url === '/readyz'
          )
            handler(req, res);
          else mock.atRoot(req, res, root.projectId);
        },
      );
      // V8 would size every later response for an empty object after an idle (kept-shapes.ts)
      keepResponseShape(server);
      // WebSocket upgrades (docs/websocket.md): the mock addresses only, spelled as any request is
      server.on('upgrade', (req: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => {
        socket.on('error', () => {});
        let url = req.url ?? '/';
        let targetHost: string | null = null;
        if (!isPlainTarget(url)) {
          const t = normaliseTarget(url);
          if (t === null)
            return ws.refuse(
              socket,
              400,
              'Bad Request',
              'validation_failed',
              'The request target is neither a path nor an absolute URL',
            );
          req.url = url = t.url;
          targetHost = t.host;
        }
        if (mockHost !== null) {
          const slug = mockHost(targetHost ?? req.headers.host);
          if (slug !== null) return ws.at(req, socket, head, '', slug);
        }
        if (url.startsWith('/m/') && !rootMockPath(url)) return ws.byPath(req, socket, head);
        if (root !== null && !url.startsWith('/api/') && !url.startsWith('/mcp'))
          return ws.at(req, socket, head, root.projectId, null);
        ws.refuse(socket, 404, 'Not Found', 'not_found', 'WebSocket upgrades are answered at mock URLs only');
      });
      // CONNECT is no method of this service; without a listener node would drop the socket silently
      server.on('connect', (_req: http.IncomingMessage, socket: import('node:stream').Duplex) => {
        const body = JSON.stringify(errorBody(new AppError('method_not_allowed', 'CONNECT is not supported')));
        socket.on('error', () => {});
        socket.end(
          `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      return server;
    },
  });
  await app.ready();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const sweep = () =>
    store.mockSessions
      .expire(config.sessionIdleHours * 3_600_000)
      .then(() => store.mockSessions.trim(config.caps.sessionsPerProject))
      .catch((err) => log.warn({ err }, 'mock session sweep failed'));
  void sweep();
  const sessionSweep = setInterval(sweep, 10 * 60_000);
  sessionSweep.unref();

  let closing: Promise<void> | null = null;
  return {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    root,
    port,
    recorder,
    store,
    server,
    log,
    close() {
      closing ??= (async () => {
        clearInterval(sessionSweep);
        // stop accepting, let in-flight requests finish (bounded), then flush and close
        const drained = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        endStreams(port);
        ws.close();
        let bound: NodeJS.Timeout | undefined;
        await Promise.race([drained, new Promise((r) => (bound = setTimeout(r, 8000)))]);
        // cleared, or a process that closes its server would live on for the rest of the 8 s
        clearTimeout(bound);
        server.closeAllConnections();
        await app.close().catch(() => {});
        await feed?.close();
        await recorder.settled();
        await requestLog.close().catch(() => {});
        await egress.close().catch(() => {});
        await store.close();
        streamsStopped(port);
      })();
      return closing;
    },
  };
}
