/**
 * The mock hot path straight from node:http, no framework routing: `/m/:projectId<path>` on the
 * service's host, or `<path>` on a project's own mock host (`<slug>.<MOCKYARD_MOCK_DOMAIN>`).
 * Reads the body (1 MiB cap), finds the endpoint through the project's compiled router, lets the
 * engine evaluate the rules, writes the answer (respond.ts), and records a log entry.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ActionOutcome, RuleTrace } from '../domain/model.js';
import { isUnavailable } from '../store/errors.js';
import { nextSeq } from '../store/ids.js';
import type { CompiledEndpoint, CompiledProject } from './compile.js';
import { MockContext, MockRequestView } from './context.js';
import { drain } from './drain.js';
import { type Egress, HOP_HEADER, parseHops } from './egress.js';
import type { Engine, Evaluation } from './engine.js';
import { proxy } from './proxy.js';
import type { LogRecord, RequestLog } from './request-log.js';
import {
  CORS,
  CSP,
  jsonError,
  MOCK_CSP,
  renderTooLarge,
  sendError,
  writeAnswer,
  writeDefault,
  writeRendered,
  writeStep,
} from './respond.js';
import { CapExceeded, RENDER_LIMIT } from './template.js';

export const MAX_BODY_BYTES = 1024 * 1024;
const LOGGED_BODY_BYTES = 64 * 1024;
const SESSION_HEADER = 'x-mockyard-session';
const SEED_HEADER = 'x-mockyard-seed';
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
  /** characters one rendered template may hold (CONTRACT §10) */
  renderLimit?: number;
}

/** The two doors into the mock path. */
export interface MockHandler {
  /** `/m/<projectId><path>` on the service's own host */
  byPath(req: IncomingMessage, res: ServerResponse): void;
  /** `<path>` on the mock host of the project whose slug is `slug` */
  byHost(req: IncomingMessage, res: ServerResponse, slug: string): void;
}

/** A body over the limit; `drained` when it was read to its end (the connection can stay open). */
class BodyTooLarge extends Error {
  constructor(readonly drained: boolean) {
    super('body too large');
  }
}

/**
 * '' when there is no body; else the bytes as received (the fallback proxy forwards them unchanged).
 * A body over the limit is read on to its end (up to twice the limit) before the 413, so the
 * client gets the answer rather than a broken pipe (see src/api/body-limit.ts).
 */
function readBody(req: IncomingMessage): Promise<Buffer> | string {
  const len = req.headers['content-length'];
  if (len === undefined && req.headers['transfer-encoding'] === undefined) return '';
  if (len === '0') return '';
  if (len !== undefined && Number(len) > MAX_BODY_BYTES) {
    return drain(req, 2 * MAX_BODY_BYTES).then((ended) => Promise.reject(new BodyTooLarge(ended)));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        if (size > 2 * MAX_BODY_BYTES) {
          req.removeAllListeners('data');
          req.resume();
          reject(new BodyTooLarge(false));
        }
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) reject(new BodyTooLarge(true));
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

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

type LoadedProject = CompiledProject | null;

/**
 * The mock request handler. Written as plain functions that continue synchronously whenever what
 * they need is at hand (no body, the project's snapshot cached, SQLite): a fixed or templated
 * answer is written in the tick the request arrived in, without a promise, a generator or a
 * closure per request. A body, a project load, a rule evaluation that waits (PostgreSQL, a
 * webhook) or a delay continues through a promise.
 */
export function createMockHandler(deps: MockServerDeps): MockHandler {
  const { engine, requestLog, log } = deps;
  const jitter = deps.rng ?? Math.random;
  const renderLimit = deps.renderLimit ?? RENDER_LIMIT;

  /** `/m/<projectId><path>?<query>` */
  function handle(req: IncomingMessage, res: ServerResponse): void | Promise<void> {
    const url = req.url ?? '/';
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
    const path = slash === -1 ? '/' : pathPart.slice(slash);
    return begin(req, res, path, q === -1 ? '' : url.slice(q + 1), projectId ? () => engine.project(projectId) : null);
  }

  /** `<path>?<query>` on a project's mock host */
  function handleHost(req: IncomingMessage, res: ServerResponse, slug: string): void | Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    return begin(req, res, path || '/', q === -1 ? '' : url.slice(q + 1), () => engine.projectBySlug(slug));
  }

  function begin(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
    load: (() => LoadedProject | Promise<LoadedProject>) | null,
  ): void | Promise<void> {
    const started = performance.now();
    const sessionHeader = req.headers[SESSION_HEADER];
    const entry: LogRecord = {
      seq: nextSeq(),
      at: isoNow(),
      // node's parser accepts upper-case methods only (a lower-case one is a 400 before this)
      method: req.method ?? 'GET',
      path,
      query,
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
    if (typeof b === 'string') return withBody(req, res, entry, started, load, b, null);
    return b.then(
      (raw) => {
        const text = raw.toString('utf8');
        entry.body = text.length > LOGGED_BODY_BYTES ? text.slice(0, LOGGED_BODY_BYTES) : text;
        return withBody(req, res, entry, started, load, text, raw);
      },
      (err) => {
        if (err instanceof BodyTooLarge)
          sendError(res, 413, jsonError('payload_too_large', 'The request body is larger than 1 MiB'), !err.drained);
        else res.destroy();
      },
    );
  }

  function withBody(
    req: IncomingMessage,
    res: ServerResponse,
    entry: LogRecord,
    started: number,
    load: (() => LoadedProject | Promise<LoadedProject>) | null,
    bodyText: string,
    rawBody: Buffer | null,
  ): void | Promise<void> {
    const project = load ? load() : null;
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
          [CSP]: MOCK_CSP,
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
      finish(project.id, entry, started, writeDefault(res, ep, ep.fixedBody, ep.fixedLength));
      return;
    }
    const view = requestView(req, entry, bodyText);
    view.params = match.params;
    const seedHeader = req.headers[SEED_HEADER];
    const seed = seedHeader === undefined ? null : String(seedHeader);
    const ctx = new MockContext(view, seed, Math.random, renderLimit);
    if (ep.rules.length === 0 && !ep.readsStorage) {
      // no rules and nothing stored to read: the templated default, rendered at once
      finish(
        project.id,
        entry,
        started,
        rendered(res, entry, () => writeRendered(res, ep, ctx)),
      );
      return;
    }
    const hops = parseHops(req.headers[HOP_HEADER]);
    let ev: Evaluation | Promise<Evaluation>;
    try {
      ev = engine.run(project.id, ep, ctx, entry.session ?? '', hops);
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
      finish(
        projectId,
        entry,
        started,
        rendered(res, entry, () => writeRendered(res, ep, ctx)),
      );
      return;
    }
    entry.ruleId = out.ruleId;
    if (out.kind === 'applied') {
      const body = out.body;
      const status = writeAnswer(
        res,
        out.status,
        {
          'content-type': out.contentType || ep.contentType,
          'content-length': Buffer.byteLength(body),
          [CORS]: '*',
          [CSP]: MOCK_CSP,
        },
        body,
      );
      finish(projectId, entry, started, status);
      return;
    }
    const status = rendered(res, entry, () => writeStep(res, ep, out.step, ctx, ctx.seeded ? ctx.rng : jitter));
    if (typeof status === 'number') finish(projectId, entry, started, status);
    else return status.then((st) => finish(projectId, entry, started, st));
  }

  /** Runs a write that renders templates; one that renders past its cap answers `500 render_too_large`. */
  function rendered<T extends number | Promise<number>>(
    res: ServerResponse,
    entry: LogRecord,
    write: () => T,
  ): T | number {
    try {
      return write();
    } catch (err) {
      if (!(err instanceof CapExceeded)) throw err;
      entry.error = err.code;
      return renderTooLarge(res, err);
    }
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
  const run = (res: ServerResponse, go: () => void | Promise<void>) => {
    try {
      const done = go();
      if (done !== undefined) done.catch(failed(res));
    } catch (err) {
      failed(res)(err);
    }
  };
  return {
    byPath: (req, res) => run(res, () => handle(req, res)),
    byHost: (req, res, slug) => run(res, () => handleHost(req, res, slug)),
  };
}
