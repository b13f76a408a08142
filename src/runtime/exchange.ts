/**
 * One mock request as it goes through the handler (mock-server.ts): the request, the answer, and
 * the log record that the handler's steps fill in (the exchange is that record).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { nextSeq } from '../domain/ids.js';
import type { RuleTrace } from '../domain/model.js';
import type { CompiledProject } from './compile.js';
import { MockRequestView } from './context.js';
import { NO_ACTIONS } from './engine.js';
import { isoAt } from './mock-body.js';
import type { LogRecord } from './request-log.js';
import { LOGGED_BODY_CHARS } from './request-log-entry.js';
import type { AnswerNote } from './respond.js';

const SESSION_HEADER = 'x-mockyard-session';
/** Shared by the entries of requests no rule ran for (never mutated: an evaluation brings its own). */
const NO_TRACES: RuleTrace[] = Object.freeze([]) as unknown as RuleTrace[];

export class Exchange implements LogRecord {
  /** `performance` imported, not the global: a global load was an inline-cache call in each
   * optimized handler function (perf: ~0.3 µs a request in serve, finish and handle) */
  readonly started = performance.now();
  /** the body as UTF-8 text ('' when none) and as received (the fallback proxy forwards it) */
  bodyText = '';
  rawBody: Buffer | null = null;
  /** set once the project is known */
  projectId = '';
  project: CompiledProject | null = null;

  // The log entry's fields: the exchange is its own log record, filled in as the request goes
  // (one object a request, where a separate entry was a second one of 24 fields).
  readonly seq = nextSeq();
  readonly at = isoAt(this.started);
  /** node's parser accepts upper-case methods only (a lower-case one is a 400 before this) */
  readonly method: string;
  readonly rawHeaders: readonly string[];
  body = '';
  endpointId: string | null = null;
  ruleId: string | null = null;
  statusCode = 0;
  durationMs = 0;
  actions = NO_ACTIONS;
  rules = NO_TRACES;
  proxied = false;
  session = '';
  error = '';
  warning = '';
  /** reached as `/m/<ref>/…` (ref: an id or a slug) */
  byPath = false;
  nearest: LogRecord['nearest'] = undefined;
  data: LogRecord['data'] = undefined;
  violations: LogRecord['violations'] = undefined;
  checkAnswer: AnswerNote['checkAnswer'] = undefined;
  sentHeaders: AnswerNote['sentHeaders'] = null;
  sentBody = '';
  sentShared = false;
  sentStep: AnswerNote['sentStep'] = null;
  sentDelay = 0;
  sentEvents = 0;
  sentEventTimes: number[] | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly path: string,
    readonly query: string,
    /** `/m/<ref>`: a project id; on a mock host: null, and `slug` names the project */
    readonly ref: string,
    readonly slug: string | null,
  ) {
    this.method = req.method ?? 'GET';
    this.rawHeaders = req.rawHeaders;
    // node builds req.headers for every HTTP/1.1 request before the handler runs (its server checks
    // Host and Expect), so reading it costs the lookup only: a scan of rawHeaders instead saved nothing
    const session = req.headers[SESSION_HEADER];
    if (typeof session === 'string' && session !== '') this.session = session.slice(0, 200);
  }

  /** The body arrived: kept whole for the mock, and up to 64 KiB in the log entry. */
  received(raw: Buffer): void {
    const text = raw.toString('utf8');
    this.body = text.length > LOGGED_BODY_CHARS ? text.slice(0, LOGGED_BODY_CHARS) : text;
    this.bodyText = text;
    this.rawBody = raw;
  }

  /** The request as conditions and templates read it. */
  view(): MockRequestView {
    const { req } = this;
    const view = new MockRequestView(this.method, this.path, this.query, req.headers, req.rawHeaders);
    view.body = this.bodyText;
    return view;
  }
}
