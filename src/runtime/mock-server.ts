/**
 * The mock hot path: `/m/:projectId<path>` straight from node:http, no framework routing.
 * Reads the body (1 MiB cap), finds the endpoint through the project's compiled router, lets the
 * engine evaluate the rules, writes the answer (with delay or fault), and records a log entry.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ActionOutcome, RuleTrace } from '../domain/model.js';
import { AppError, errorBody } from '../errors.js';
import { nextSeq } from '../store/ids.js';
import type { CompiledEndpoint, CompiledStep } from './compile.js';
import { MockContext, MockRequestView } from './context.js';
import { type Egress, EgressError, HOP_HEADER } from './egress.js';
import type { Engine, Evaluation } from './engine.js';
import type { LogRecord, RequestLog } from './request-log.js';

export const MAX_BODY_BYTES = 1024 * 1024;
const LOGGED_BODY_BYTES = 64 * 1024;
const SESSION_HEADER = 'x-mockyard-session';
const SEED_HEADER = 'x-mockyard-seed';
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
]);

const CORS = 'access-control-allow-origin';
const jsonError = (code: ConstructorParameters<typeof AppError>[0], message?: string) =>
  JSON.stringify(errorBody(new AppError(code, message)));
/** Answers a miss often gets (scanners, typos): built once, not per request. */
const NO_PROJECT = jsonError('mock_not_found', 'No mock project with this id');
const NO_ENDPOINT = jsonError('mock_not_found');
/** Shared by the entries of requests no rule ran for (never mutated: an evaluation brings its own). */
const NO_ACTIONS: ActionOutcome[] = Object.freeze([]) as unknown as ActionOutcome[];
const NO_TRACES: RuleTrace[] = Object.freeze([]) as unknown as RuleTrace[];

export interface MockServerDeps {
  engine: Engine;
  egress: Egress;
  requestLog: RequestLog;
  log: Logger;
  /** jitter source (tests may inject) */
  rng?: () => number;
}

class BodyTooLarge extends Error {}

/** '' when there is no body; else the bytes as received (the fallback proxy forwards them unchanged). */
function readBody(req: IncomingMessage): Promise<Buffer> | string {
  const len = req.headers['content-length'];
  if (len === undefined && req.headers['transfer-encoding'] === undefined) return '';
  if (len !== undefined && Number(len) > MAX_BODY_BYTES) return Promise.reject(new BodyTooLarge());
  if (len === '0') return '';
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendError(res: ServerResponse, status: number, body: string, close = false): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    [CORS]: '*',
  };
  if (close) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(body);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let lastMs = 0;
let lastIso = '';
/** The current time as ISO 8601, formatted at most once per millisecond. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** The request as conditions and templates read it. */
function requestView(req: IncomingMessage, entry: LogRecord, body: string): MockRequestView {
  const view = new MockRequestView(entry.method, entry.path, entry.query, req.headers, req.rawHeaders);
  view.body = body;
  return view;
}

type LoadedProject = Exclude<ReturnType<Engine['project']>, Promise<unknown>>;

/**
 * The mock request handler. Written as plain functions that continue synchronously whenever what
 * they need is at hand (no body, the project's snapshot cached, SQLite): a fixed or templated
 * answer is written in the tick the request arrived in, without a promise, a generator or a
 * closure per request. A body, a project load, a rule evaluation that waits (PostgreSQL, a
 * webhook) or a delay continues through a promise.
 */
export function createMockHandler(deps: MockServerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { engine, requestLog, log } = deps;
  const jitter = deps.rng ?? Math.random;

  function handle(req: IncomingMessage, res: ServerResponse): void | Promise<void> {
    const started = performance.now();
    const url = req.url ?? '/';
    // url = /m/<projectId><path>?<query>
    const q = url.indexOf('?');
    const pathPart = q === -1 ? url : url.slice(0, q);
    const slash = pathPart.indexOf('/', 3);
    let projectId = slash === -1 ? pathPart.slice(3) : pathPart.slice(3, slash);
    if (projectId.includes('%')) {
      try {
        projectId = decodeURIComponent(projectId);
      } catch {
        /* keep raw: it will not be found */
      }
    }
    const sessionHeader = req.headers[SESSION_HEADER];
    const entry: LogRecord = {
      seq: nextSeq(),
      at: isoNow(),
      // node's parser accepts upper-case methods only (a lower-case one is a 400 before this)
      method: req.method ?? 'GET',
      path: slash === -1 ? '/' : pathPart.slice(slash),
      query: q === -1 ? '' : url.slice(q + 1),
      rawHeaders: req.rawHeaders,
      body: '',
      endpointId: null,
      ruleId: null,
      statusCode: 0,
      durationMs: 0,
      actions: NO_ACTIONS,
      rules: NO_TRACES,
    };
    if (typeof sessionHeader === 'string' && sessionHeader !== '') entry.session = sessionHeader.slice(0, 200);

    const b = readBody(req);
    if (typeof b === 'string') return withBody(req, res, entry, started, projectId, b, null);
    return b.then(
      (raw) => {
        const text = raw.toString('utf8');
        entry.body = text.length > LOGGED_BODY_BYTES ? text.slice(0, LOGGED_BODY_BYTES) : text;
        return withBody(req, res, entry, started, projectId, text, raw);
      },
      (err) => {
        if (err instanceof BodyTooLarge) sendError(res, 413, jsonError('payload_too_large'), true);
        else res.destroy();
      },
    );
  }

  function withBody(
    req: IncomingMessage,
    res: ServerResponse,
    entry: LogRecord,
    started: number,
    projectId: string,
    bodyText: string,
    rawBody: Buffer | null,
  ): void | Promise<void> {
    const project = projectId ? engine.project(projectId) : null;
    if (!(project instanceof Promise)) return serve(req, res, entry, started, bodyText, rawBody, project);
    return project.then(
      (p) => serve(req, res, entry, started, bodyText, rawBody, p),
      (err) => {
        // the project is not cached and the database does not answer
        const unavailable = isUnavailable(err);
        log.error({ err }, 'mock project could not be loaded');
        sendError(res, unavailable ? 503 : 500, jsonError(unavailable ? 'unavailable' : 'internal'));
      },
    );
  }

  function finish(projectId: string, entry: LogRecord, started: number, status: number): void {
    entry.statusCode = status;
    entry.durationMs = Math.round((performance.now() - started) * 100) / 100;
    requestLog.record(projectId, entry);
  }

  function serve(
    req: IncomingMessage,
    res: ServerResponse,
    entry: LogRecord,
    started: number,
    bodyText: string,
    rawBody: Buffer | null,
    project: LoadedProject,
  ): void | Promise<void> {
    if (!project) {
      sendError(res, 404, NO_PROJECT);
      return;
    }
    const { method, path } = entry;
    const match = project.router.match(method, path);
    if (!match) {
      if (project.fallbackUrl) {
        entry.proxied = true;
        const view = requestView(req, entry, bodyText);
        return proxy(deps.egress, project.fallbackUrl, view, rawBody, req, res).then((status) =>
          finish(project.id, entry, started, status),
        );
      }
      if (method === 'OPTIONS') {
        res.writeHead(204, {
          [CORS]: '*',
          'access-control-allow-methods':
            req.headers['access-control-request-method'] ?? 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
          'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '*',
          'access-control-max-age': '86400',
          'content-length': 0,
        });
        res.end();
        finish(project.id, entry, started, 204);
        return;
      }
      sendError(res, 404, NO_ENDPOINT);
      finish(project.id, entry, started, 404);
      return;
    }

    const ep = match.value;
    entry.endpointId = ep.id;
    if (ep.rules.length === 0 && ep.fixedBody !== null) {
      // a fixed answer: nothing of the request is read
      writeDefault(res, ep, ep.fixedBody, ep.fixedLength);
      finish(project.id, entry, started, ep.statusCode);
      return;
    }
    const view = requestView(req, entry, bodyText);
    view.params = match.params;
    const seedHeader = req.headers[SEED_HEADER];
    const seed = seedHeader === undefined ? null : String(seedHeader);
    const ctx = new MockContext(view, seed);
    if (ep.rules.length === 0 && !ep.readsStorage) {
      // no rules and nothing stored to read: the templated default, rendered at once
      writeRendered(res, ep, ctx);
      finish(project.id, entry, started, ep.statusCode);
      return;
    }
    const hops = Number(req.headers[HOP_HEADER]) || 0;
    let ev: Evaluation | Promise<Evaluation>;
    try {
      ev = engine.run(ep, ctx, entry.session ?? '', hops);
    } catch (err) {
      evaluationFailed(res, project.id, entry, started, err);
      return;
    }
    if (!(ev instanceof Promise)) return answer(res, ep, ctx, project.id, entry, started, ev);
    return ev.then(
      (done) => answer(res, ep, ctx, project.id, entry, started, done),
      (err) => evaluationFailed(res, project.id, entry, started, err),
    );
  }

  /** Writes the evaluation's answer: the default, an applied webhook response, or a step. */
  function answer(
    res: ServerResponse,
    ep: CompiledEndpoint,
    ctx: MockContext,
    projectId: string,
    entry: LogRecord,
    started: number,
    ev: Evaluation,
  ): void | Promise<void> {
    entry.actions = ev.actions;
    entry.rules = ev.rules;
    const out = ev.outcome;
    if (out.kind === 'default') {
      writeRendered(res, ep, ctx);
      finish(projectId, entry, started, ep.statusCode);
      return;
    }
    entry.ruleId = out.ruleId;
    if (out.kind === 'applied') {
      const body = out.body;
      res.writeHead(out.status, {
        'content-type': out.contentType || ep.contentType,
        'content-length': Buffer.byteLength(body),
        [CORS]: '*',
      });
      res.end(body);
      finish(projectId, entry, started, out.status);
      return;
    }
    const status = writeStep(res, ep, out.step, ctx, ctx.seeded ? ctx.rng : jitter);
    if (typeof status === 'number') finish(projectId, entry, started, status);
    else return status.then((st) => finish(projectId, entry, started, st));
  }

  function evaluationFailed(
    res: ServerResponse,
    projectId: string,
    entry: LogRecord,
    started: number,
    err: unknown,
  ): void {
    log.error({ err }, 'mock evaluation failed');
    const unavailable = isUnavailable(err);
    sendError(res, unavailable ? 503 : 500, jsonError(unavailable ? 'unavailable' : 'internal'));
    finish(projectId, entry, started, unavailable ? 503 : 500);
  }

  const failed = (res: ServerResponse) => (err: unknown) => {
    log.error({ err }, 'mock request failed');
    sendError(res, 500, jsonError('internal'));
  };
  return (req, res) => {
    try {
      const done = handle(req, res);
      if (done !== undefined) done.catch(failed(res));
    } catch (err) {
      failed(res)(err);
    }
  };
}

export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (!e) return false;
  if (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'SQLITE_BUSY',
      '57P01',
      '57P02',
      '57P03',
      '08000',
      '08003',
      '08006',
      '08001',
      '53300',
    ].includes(e.code ?? '')
  ) {
    return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not currently accepting connections|database is locked/i.test(
    e.message ?? '',
  );
}

/**
 * Answers are written as strings (UTF-8): node then sends the head and a string body in one write,
 * where a Buffer body costs a second chunk, a corked socket and a writev.
 */
function writeDefault(res: ServerResponse, ep: CompiledEndpoint, body: string, length: number): void {
  res.writeHead(ep.statusCode, {
    'content-type': ep.contentType,
    'content-length': length,
    [CORS]: '*',
  });
  res.end(body);
}

/** The default answer, fixed or rendered (an endpoint has one of the two). */
function writeRendered(res: ServerResponse, ep: CompiledEndpoint, ctx: MockContext): void {
  if (ep.fixedBody !== null) writeDefault(res, ep, ep.fixedBody, ep.fixedLength);
  else {
    const body = ep.defaultBody?.(ctx) ?? '';
    writeDefault(res, ep, body, Buffer.byteLength(body));
  }
}

/** Writes a step's answer (or its fault), after its delay: the status written, 0 for a fault. */
function writeStep(
  res: ServerResponse,
  ep: CompiledEndpoint,
  step: CompiledStep,
  ctx: MockContext,
  rng: () => number,
): number | Promise<number> {
  // render before waiting, so the answer reflects the request as it was evaluated
  let body: string;
  let headers: Readonly<Record<string, string | number>>;
  if (step.fixed) {
    body = step.fixed.body;
    headers = step.fixed.headers;
  } else {
    body = step.body(ctx);
    const h: Record<string, string | number> = {};
    for (const [k, v] of step.headers) {
      const value = v(ctx);
      if (!/[\r\n\0]/.test(value)) h[k] = value;
    }
    h['content-type'] = step.contentType ? step.contentType(ctx) : ep.contentType;
    h[CORS] = '*';
    h['content-length'] = Buffer.byteLength(body);
    headers = h;
  }
  const wait =
    step.delayMaxMs > step.delayMs
      ? step.delayMs + Math.floor(rng() * (step.delayMaxMs - step.delayMs + 1))
      : step.delayMs;
  if (wait > 0) return sleep(wait).then(() => emitStep(res, ep, step, body, headers));
  return emitStep(res, ep, step, body, headers);
}

function emitStep(
  res: ServerResponse,
  ep: CompiledEndpoint,
  step: CompiledStep,
  body: string,
  headers: Readonly<Record<string, string | number>>,
): number {
  if (res.destroyed) return 0;
  const sock = res.socket;
  switch (step.fault) {
    case 'connection_reset':
      if (sock && typeof sock.resetAndDestroy === 'function') sock.resetAndDestroy();
      else sock?.destroy();
      return 0;
    case 'empty_response':
      sock?.end();
      sock?.destroy();
      return 0;
    case 'malformed_body':
      // a valid status line, then bytes that are not a valid chunked body, then close (like WireMock)
      sock?.end(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nlskdu018973t09sylgasjkfg1][]'./.sdlv",
      );
      return 0;
  }
  try {
    res.writeHead(step.statusCode, headers);
  } catch {
    res.writeHead(step.statusCode, {
      'content-type': ep.contentType,
      'content-length': Buffer.byteLength(body),
      [CORS]: '*',
    });
  }
  res.end(body);
  return step.statusCode;
}

async function proxy(
  egress: Egress,
  base: string,
  view: MockRequestView,
  rawBody: Buffer | null,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<number> {
  const headers: Record<string, string> = {};
  const requestHops = connectionTokens(view.headers.connection);
  for (const [k, v] of Object.entries(view.headers)) if (!HOP_BY_HOP.has(k) && !requestHops.has(k)) headers[k] = v;
  headers[HOP_HEADER] = String((Number(view.headers[HOP_HEADER]) || 0) + 1);
  const target = base.replace(/\/+$/, '') + view.path + (view.rawQuery ? `?${view.rawQuery}` : '');
  try {
    if ((Number(view.headers[HOP_HEADER]) || 0) >= 3) throw new EgressError('blocked', 'blocked: too many hops');
    const r = await egress.request({
      url: target,
      method: view.method,
      headers,
      body: view.method === 'GET' || view.method === 'HEAD' ? undefined : (rawBody ?? undefined),
      timeoutMs: 10_000,
      followRedirects: false,
    });
    // the bytes as the target sent them, content-encoding included (the client decodes)
    const body = r.bytes ?? Buffer.from(r.body);
    const out: Record<string, string | number> = {};
    const responseHops = connectionTokens(r.headers.connection);
    for (const [k, v] of Object.entries(r.headers)) if (!HOP_BY_HOP.has(k) && !responseHops.has(k)) out[k] = v;
    out['content-length'] = body.length;
    out[CORS] = '*';
    res.writeHead(r.status, out);
    res.end(req.method === 'HEAD' ? undefined : body);
    return r.status;
  } catch (err) {
    const msg = err instanceof EgressError ? err.message : 'fallback failed';
    sendError(res, 502, jsonError('bad_gateway', `The fallback target could not be reached (${msg})`));
    return 502;
  }
}

/** Header names a Connection header lists: hop-by-hop as well (RFC 9110 §7.6.1). */
function connectionTokens(value: string | undefined): Set<string> {
  if (!value) return new Set();
  return new Set(
    value
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean),
  );
}
