/**
 * The mock hot path straight from node:http, no framework routing: `/m/:projectId<path>` on the
 * service's host, or `<path>` on a project's own mock host (`<slug>.<MOCKYARD_MOCK_DOMAIN>`).
 * Reads the body (1 MiB cap), finds the endpoint through the project's compiled router, lets the
 * engine evaluate the rules, writes the answer (respond.ts), and records a log entry.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { CollectionReply, type ReplyTo } from './collection-write.js';
import { checkRequest } from './contract/gate.js';
import { answerGraphqlRequest } from './graphql/answer.js';
import { graphqlView } from './graphql/view.js';
import { SocketHub } from './ws/hub.js';

export { MAX_BODY_BYTES } from './mock-body.js';

import type { Logger } from 'pino';
import { isUnavailable } from '../domain/driver-errors.js';
import { collectionAnswer } from './collection-answer.js';
import type { CompiledEndpoint, CompiledProject } from './compile.js';
import { MockContext } from './context.js';
import { type Egress, HOP_HEADER, parseHops } from './egress.js';
import type { Engine, Evaluating, Evaluation } from './engine.js';
import { Exchange } from './exchange.js';
import { type BodyTo, BodyTooLarge, readBody } from './mock-body.js';
import type { HotState, Recorder, Waiter } from './ports.js';
import { type ProxiedAnswer, proxy } from './proxy.js';
import type { RequestLog } from './request-log.js';
import {
  CORS,
  CSP,
  jsonError,
  MOCK_CSP,
  renderTooLarge,
  sendError,
  writeAnswer,
  writeFixed,
  writeRendered,
  writeStep,
} from './respond.js';
import { driveInto, LATER } from './steps.js';
import { CapExceeded, RENDER_LIMIT } from './template.js';
import { answerUnmatched } from './unmatched.js';

const SEED_HEADER = 'x-mockyard-seed';
/** Answers a miss often gets (scanners, typos): built once, not per request. */
const NO_PROJECT = jsonError('mock_not_found', 'No mock project with this id');
const _NO_ENDPOINT = jsonError('mock_not_found');

export interface MockServerDeps {
  engine: Engine;
  egress: Egress;
  requestLog: RequestLog;
  log: Logger;
  /** jitter source (tests may inject) */
  rng?: () => number;
  /** characters one rendered template may hold (docs/limits.md) */
  renderLimit?: number;
  /** loop iterations one template render may run */
  iterationLimit?: number;
  /** WebSockets and GraphQL subscriptions (docs/websocket.md, docs/graphql.md) */
  hub?: SocketHub;
  /** the store's hot state (collections answer through it) */
  hot: HotState;
  /** writes the answers of projects in record mode */
  recorder?: Recorder;
}

/** The doors into the mock path. */
export interface MockHandler {
  /** `/m/<projectId><path>` on the service's own host */
  byPath(req: IncomingMessage, res: ServerResponse): void;
  /** `<path>` on the mock host of the project whose slug is `slug` */
  byHost(req: IncomingMessage, res: ServerResponse, slug: string): void;
  /** a request at the root path of the port, for `projectId` (`mockyard serve --file`, docs/testing.md) */
  atRoot(req: IncomingMessage, res: ServerResponse, projectId: string): void;
}

/**
 * The mock request handler. Written as plain functions that continue synchronously whenever what
 * they need is at hand (no body, the project's snapshot cached, SQLite): a fixed or templated
 * answer is written in the tick the request arrived in, without a promise or a generator. A body
 * continues from the request's events (`bodyTo`), a bound collection's command from its commit
 * (`CollectionReply`); a project load, a rule evaluation that waits (a counter, PostgreSQL, a
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
    return begin(req, res, path, q === -1 ? '' : url.slice(q + 1), projectId, null, true);
  }

  /**
   * `<path>?<query>` with the project known by where the request came: its mock host (`slug`), or
   * the root of the port of `mockyard serve --file` (`ref`, the project id).
   */
  function handleAt(req: IncomingMessage, res: ServerResponse, ref: string, slug: string | null): void | Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    return begin(req, res, path || '/', q === -1 ? '' : url.slice(q + 1), ref, slug);
  }

  function begin(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
    ref: string,
    slug: string | null,
    byPath = false,
  ): void | Promise<void> {
    const x = new Exchange(req, res, path, query, ref, slug);
    // `/m/<ref>`: an id or a slug
    x.byPath = byPath;
    if (readBody(req, x, bodyTo) === '') return withBody(x);
  }

  /** A body read later: on to the project and the rules, or a 413 (a broken read: closed); nothing throws out (events). */
  const bodyTo: BodyTo<Exchange> = {
    read(x, raw) {
      try {
        x.received(raw);
        withBody(x)?.catch(failed(x.res));
      } catch (err) {
        failed(x.res)(err);
      }
    },
    failed(x, err) {
      // neither throws (sendError writes nothing once the head is sent or the socket is gone)
      if (!(err instanceof BodyTooLarge)) x.res.destroy();
      else sendError(x.res, 413, jsonError('payload_too_large', 'The request body is larger than 1 MiB'), !err.drained);
    },
  };

  function withBody(x: Exchange): void | Promise<void> {
    const { projects } = engine;
    const project =
      x.slug !== null
        ? projects.projectBySlug(x.slug)
        : x.ref
          ? x.byPath
            ? projects.projectByRef(x.ref)
            : projects.project(x.ref)
          : null;
    if (!(project instanceof Promise)) return serve(x, project);
    return project.then(
      (p) => serve(x, p),
      (err) => {
        // the project is not cached and the database does not answer
        const unavailable = isUnavailable(err);
        log.error({ err }, 'mock project could not be loaded');
        sendError(x.res, unavailable ? 503 : 500, jsonError(unavailable ? 'unavailable' : 'internal'));
      },
    );
  }

  function finish(x: Exchange, status: number): void {
    x.statusCode = status;
    x.durationMs = Math.round((performance.now() - x.started) * 100) / 100;
    requestLog.record(x.projectId, x);
  }

  function serve(x: Exchange, project: CompiledProject | null): void | Promise<void> {
    const { req, res } = x;
    if (!project) {
      sendError(res, 404, NO_PROJECT);
      return;
    }
    x.projectId = project.id;
    x.project = project;
    if (project.contract) {
      const refused = checkRequest(x, project, req, res);
      if (refused !== null) return finish(x, refused);
    }
    const { method, path } = x;
    if (project.recording && project.fallbackUrl && deps.recorder) {
      // record mode: everything goes to the target, and its answer becomes a mock
      x.proxied = true;
      const view = x.view();
      const recorder = deps.recorder;
      const id = project.id;
      let recorded: Promise<string | null> | null = null;
      const onAnswer = (answer: ProxiedAnswer) => {
        recorded = recorder.record({
          projectId: id,
          method,
          path,
          rawQuery: view.rawQuery,
          requestBody: x.bodyText,
          answer,
        });
      };
      return proxy(deps.egress, project.fallbackUrl, view, x.rawBody, req, res, onAnswer, x.checkAnswer).then(
        async (status) => {
          // the entry says when the answer was not recorded (e.g. larger than MOCKYARD_MAX_RECORD_BYTES)
          const warning = recorded === null ? null : await (recorded as Promise<string | null>);
          if (warning) x.warning = warning;
          finish(x, status);
        },
      );
    }
    const match = project.router.match(method, path);
    if (!match) {
      const status = answerUnmatched(x, project, deps.egress);
      if (typeof status === 'number') return finish(x, status);
      return status.then((s) => finish(x, s));
    }

    const ep = match.value;
    x.endpointId = ep.id;
    if (ep.rules.length === 0 && ep.fixedBody !== null && ep.data === null) {
      // a fixed answer: nothing of the request is read
      finish(x, writeFixed(res, ep as CompiledEndpoint & { fixedBody: string }, x));
      return;
    }
    const view = x.view();
    view.params = match.params;
    const seedHeader = req.headers[SEED_HEADER];
    const seed = seedHeader === undefined ? null : String(seedHeader);
    const ctx = new MockContext(view, seed, Math.random, renderLimit);
    ctx.config = project.config;
    ctx.iterationLimit = deps.iterationLimit;
    if (ep.graphql) ctx.graphql = graphqlView(view, ctx);
    if (
      !ep.graphql &&
      ep.rules.length === 0 &&
      !ep.readsStorage &&
      !ep.readsProjectStorage &&
      ep.counts.length === 0 &&
      ep.lists.length === 0 &&
      !ep.data
    ) {
      // no rules and nothing stored to read: the templated default, rendered at once
      finish(x, writeDefaultOf(x, ep, ctx));
      return;
    }
    let ev: Evaluation | null;
    try {
      const hops = parseHops(req.headers[HOP_HEADER]);
      const e = new Evaluated(x, project, ep, ctx, x.session, hops);
      ev = engine.run(e, e);
    } catch (err) {
      evaluationFailed(x, err);
      return;
    }
    if (ev !== null) return answer(x, ep, ctx, ev);
  }

  /**
   * One evaluation: what the engine reads, and where its answer goes when it waited — one object
   * per request, and no promise on the counted path (engine.ts).
   */
  class Evaluated implements Evaluating, Waiter<Evaluation> {
    readonly projectId: string;
    readonly collections: CompiledProject['collections'];
    constructor(
      private readonly x: Exchange,
      project: CompiledProject,
      readonly ep: CompiledEndpoint,
      readonly ctx: MockContext,
      readonly session: string,
      readonly hops: number,
    ) {
      this.projectId = project.id;
      this.collections = project.collections;
    }

    resolve(ev: Evaluation): void {
      const { res } = this.x;
      try {
        const done = answer(this.x, this.ep, this.ctx, ev);
        if (done !== undefined) done.catch(failed(res));
      } catch (err) {
        failed(res)(err);
      }
    }

    reject(err: unknown): void {
      evaluationFailed(this.x, err);
    }
  }

  /** Writes the evaluation's answer: the default, an applied webhook response, or a step. */
  function answer(x: Exchange, ep: CompiledEndpoint, ctx: MockContext, ev: Evaluation): void | Promise<void> {
    const { res } = x;
    x.actions = ev.actions;
    x.rules = ev.rules;
    const out = ev.outcome;
    if (out.kind === 'default' && ep.data && x.project) {
      // no rule answered an endpoint bound to a collection: the collection operation is the answer
      x.data = ep.data.note;
      const reply = new CollectionReply(x, replyTo, deps.hub);
      const done = driveInto(collectionAnswer(x.project, ep, ctx, x.session, deps.hot), reply);
      if (done !== LATER) reply.resolve(done);
      return;
    }
    if (ep.graphql && x.project && (out.kind === 'default' || (out.kind === 'step' && out.step.graphql))) {
      // a GraphQL endpoint: data from its schema (and bound collections), a step's graphql merged over it
      if (out.kind === 'step') x.ruleId = out.ruleId;
      const step = out.kind === 'step' ? out.step : null;
      const scope = {
        project: x.project,
        gql: ep.graphql,
        session: x.session,
        hot: deps.hot,
        hub: deps.hub ?? new SocketHub(),
      };
      return answerGraphqlRequest(x, scope, ctx, step).then(
        (st) => finish(x, st),
        (err) => evaluationFailed(x, err),
      );
    }
    if (out.kind === 'default') {
      finish(x, writeDefaultOf(x, ep, ctx));
      return;
    }
    x.ruleId = out.ruleId;
    if (out.kind === 'applied') {
      const body = out.body;
      const headers = {
        'content-type': out.contentType || ep.contentType,
        'content-length': Buffer.byteLength(body),
        [CORS]: '*',
        [CSP]: MOCK_CSP,
      };
      finish(x, writeAnswer(res, out.status, headers, body, x));
      return;
    }
    let status: number | Promise<number>;
    try {
      status = writeStep(res, ep, out.step, ctx, ctx.seeded ? ctx.rng : jitter, x);
    } catch (err) {
      status = tooLarge(x, err);
    }
    if (typeof status === 'number') finish(x, status);
    else return status.then((st) => finish(x, st));
  }

  /** A template rendered past its cap: `500 render_too_large`, and the log entry says why. */
  function tooLarge(x: Exchange, err: unknown): number {
    if (!(err instanceof CapExceeded)) throw err;
    x.error = err.code;
    return renderTooLarge(x.res, err);
  }

  /** The default answer, rendered (no closure per request: this is the hot path). */
  function writeDefaultOf(x: Exchange, ep: CompiledEndpoint, ctx: MockContext): number {
    try {
      return writeRendered(x.res, ep, ctx, x);
    } catch (err) {
      return tooLarge(x, err);
    }
  }

  function evaluationFailed(x: Exchange, err: unknown): void {
    log.error({ err }, 'mock evaluation failed');
    const unavailable = isUnavailable(err);
    sendError(x.res, unavailable ? 503 : 500, jsonError(unavailable ? 'unavailable' : 'internal'));
    finish(x, unavailable ? 503 : 500);
  }

  const failed = (res: ServerResponse) => (err: unknown) => {
    log.error({ err }, 'mock request failed');
    sendError(res, 500, jsonError('internal'));
  };
  const replyTo: ReplyTo = { finish, broke: (x, err) => failed(x.res)(err), failed: evaluationFailed };
  /** One request through the mock path, `/m/…` when `ref` is null (no closure per request). */
  function enter(req: IncomingMessage, res: ServerResponse, ref: string | null, slug: string | null): void {
    try {
      const done = ref === null ? handle(req, res) : handleAt(req, res, ref, slug);
      if (done !== undefined) done.catch(failed(res));
    } catch (err) {
      failed(res)(err);
    }
  }
  return {
    byPath: (req, res) => enter(req, res, null, null),
    byHost: (req, res, slug) => enter(req, res, '', slug),
    atRoot: (req, res, projectId) => enter(req, res, projectId, null),
  };
}
