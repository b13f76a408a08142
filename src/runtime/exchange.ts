/**
 * One mock request as it goes through the handler (mock-server.ts): the request, the answer, and
 * the log entry that the handler's steps fill in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ActionOutcome, RuleTrace } from '../domain/model.js';
import { nextSeq } from '../store/ids.js';
import type { CompiledProject } from './compile.js';
import { MockRequestView } from './context.js';
import { isoNow } from './mock-body.js';
import type { LogRecord } from './request-log.js';

/** how much of a request's body its log entry keeps */
const LOGGED_BODY_BYTES = 64 * 1024;
const SESSION_HEADER = 'x-mockyard-session';
/** Shared by the entries of requests no rule ran for (never mutated: an evaluation brings its own). */
const NO_ACTIONS: ActionOutcome[] = Object.freeze([]) as unknown as ActionOutcome[];
const NO_TRACES: RuleTrace[] = Object.freeze([]) as unknown as RuleTrace[];

export class Exchange {
  /** `performance` imported, not the global: a global load was an inline-cache call in each
   * optimized handler function (perf: ~0.3 µs a request in serve, finish and handle) */
  readonly started = performance.now();
  readonly entry: LogRecord;
  /** the body as UTF-8 text ('' when none) and as received (the fallback proxy forwards it) */
  bodyText = '';
  rawBody: Buffer | null = null;
  /** set once the project is known */
  projectId = '';
  project: CompiledProject | null = null;
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    path: string,
    query: string,
    /** `/m/<ref>`: a project id; on a mock host: null, and `slug` names the project */
    readonly ref: string,
    readonly slug: string | null,
  ) {
    this.entry = {
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
      sentHeaders: null,
      sentBody: '',
      sentShared: false,
      sentStep: null,
      sentDelay: 0,
    };
    const session = req.headers[SESSION_HEADER];
    if (typeof session === 'string' && session !== '') this.entry.session = session.slice(0, 200);
  }

  /** The body arrived: kept whole for the mock, and up to 64 KiB in the log entry. */
  received(raw: Buffer): void {
    const text = raw.toString('utf8');
    this.entry.body = text.length > LOGGED_BODY_BYTES ? text.slice(0, LOGGED_BODY_BYTES) : text;
    this.bodyText = text;
    this.rawBody = raw;
  }

  /** The request as conditions and templates read it. */
  view(): MockRequestView {
    const { entry, req } = this;
    const view = new MockRequestView(entry.method, entry.path, entry.query, req.headers, req.rawHeaders);
    view.body = this.bodyText;
    return view;
  }
}
