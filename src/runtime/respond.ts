/**
 * Writing mock answers: the headers every answer carries, the default answer, a rule's step (with
 * its delay, fault or informational status), and the error answers of the mock path.
 *
 * Every mock answer is isolated from the dashboard's origin (SECURITY.md): it carries
 * `Content-Security-Policy: sandbox …` (never `allow-same-origin`), so an HTML or script answer runs
 * in an opaque origin; a step's own CSP is sent beside ours, never instead of it; and
 * `Service-Worker-Allowed` and `Clear-Site-Data` are never sent.
 */
import type { ServerResponse } from 'node:http';
import { type ErrorCode, errorOf } from '../domain/errors.js';
import { withField } from '../domain/plain-objects.js';
import type { CompiledEndpoint, CompiledStep } from './compile.js';
import type { MockContext } from './context.js';
import { type PreparedHead, prepareHead, sendPrepared } from './prepared-head.js';
import { streamStep } from './stream-step.js';
import type { CapExceeded } from './template.js';

export const CORS = 'access-control-allow-origin';
export const CSP = 'content-security-policy';
export const MOCK_CSP = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';
/** Header names no mock answer carries: a worker scope for the whole origin, or wiping its storage. */
const DROPPED = new Set(['service-worker-allowed', 'clear-site-data']);
/** A header value node can send (RFC 9110 field-value, Latin-1): no CR, LF, NUL or other controls. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

export type OutHeaders = Record<string, string | number | string[]>;

/**
 * Where a written answer is noted for the request log (its record): references only — the headers
 * object and body string that were sent anyway, the compiled step and the delay — so noting costs
 * four stores on the hot path; the log copies or spells them later (request-log-ring.ts).
 */
export interface AnswerNote {
  sentHeaders: Readonly<OutHeaders> | null;
  sentBody: string;
  /** the body is a compile-time string every answer shares: the log keeps it by reference */
  sentShared: boolean;
  sentStep: CompiledStep | null;
  sentDelay: number;
  /** events a streamed answer sent (src/runtime/stream-step.ts) */
  sentEvents?: number;
  /** when each event went out, in ms after the answer's head (the first 1,000) */
  sentEventTimes?: number[];
  /**
   * Checks an answer against the contract before it is written (docs/contract.md): the number of
   * violations, request ones included, for `X-Mockyard-Violations`. Answers then skip the prepared
   * head, which cannot take a header.
   */
  checkAnswer?: (status: number, headers: Readonly<OutHeaders>, body: string) => number;
}

/** The header that counts an answer's contract violations. */
export const VIOLATIONS_HEADER = 'x-mockyard-violations';

export const jsonError = (code: ErrorCode, message?: string) => JSON.stringify(errorOf(code, message));

/** Whether node can send `value` as a header value. */
export const sendableHeaderValue = (value: string): boolean => !INVALID_VALUE.test(value);

/**
 * The headers of an answer: the step's (or proxied target's) own ones, less the dropped names and
 * values node could not send, then content type, CORS, our CSP (with theirs beside it) and length.
 */
export function answerHeaders(
  own: Iterable<readonly [string, string]>,
  contentType: string,
  length: number,
): OutHeaders {
  const h: OutHeaders = {};
  const csp: string[] = [MOCK_CSP];
  // the answer's own Access-Control-Allow-Origin (any spelling) replaces our `*`: one header, never `*, *`
  let origin = '*';
  for (const [k, v] of own) {
    const lower = k.toLowerCase();
    if (DROPPED.has(lower) || lower === 'content-type' || lower === 'content-length' || !sendableHeaderValue(v))
      continue;
    if (lower === CSP) {
      // a proxied mock answer (ours, one hop on) carries our policy already
      if (v !== MOCK_CSP) csp.push(v);
    } else if (lower === CORS) origin = v;
    else h[k] = v;
  }
  // no content type at all for an answer that declares none (an imported "no content" response)
  if (contentType !== '') h['content-type'] = contentType;
  h[CORS] = origin;
  h[CSP] = csp.length === 1 ? MOCK_CSP : csp;
  h['content-length'] = length;
  return h;
}

/** An error answer of the mock path (the contract's shape), unless an answer was already sent. */
export function sendError(res: ServerResponse, status: number, body: string, close = false): void {
  if (res.headersSent || res.destroyed) return;
  const headers: OutHeaders = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    [CORS]: '*',
    [CSP]: MOCK_CSP,
  };
  if (close) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(body);
}

/**
 * A 1xx status is not a final answer (RFC 9110 §15.2): sent as one, a client waits for the real
 * answer forever, and a `101` without `Upgrade` may make a proxy tunnel the connection. So a 1xx
 * step or default sends the informational response node can send for it — `100 Continue`,
 * `102 Processing`, `103 Early Hints` (with the answer's `Link` header, when it has one) — and
 * then the answer itself as `200`. `101` and unassigned 1xx codes send no informational response.
 * Answers the status to write.
 */
function finalStatus(res: ServerResponse, status: number, headers: OutHeaders): number {
  if (status >= 200) return status;
  try {
    if (status === 100) res.writeContinue();
    else if (status === 102) res.writeProcessing();
    else if (status === 103) {
      const link = Object.entries(headers).find(([k]) => k.toLowerCase() === 'link')?.[1];
      if (typeof link === 'string') res.writeEarlyHints({ link });
    }
  } catch {
    /* a Link value node refuses: no hints, the answer still goes out */
  }
  return 200;
}

/** Notes an answer written from its prepared head (as writeAnswer does); the status. */
function noted(note: AnswerNote, headers: Readonly<OutHeaders>, body: string, status: number): number {
  note.sentHeaders = headers;
  note.sentBody = body;
  note.sentShared = false;
  return status;
}

/** Writes an answer; the status written (a 1xx becomes 200, see finalStatus). */
export function writeAnswer(
  res: ServerResponse,
  status: number,
  headers: OutHeaders,
  body: string,
  note: AnswerNote,
): number {
  let sent = headers;
  if (note.checkAnswer) {
    const n = note.checkAnswer(status, headers, body);
    if (n > 0) sent = withField(headers, VIOLATIONS_HEADER, String(n)) as OutHeaders;
  }
  if (sent === headers && status >= 200) {
    const head = ownHead(status, headers);
    if (
      head &&
      sendPrepared(
        res,
        status,
        `${head.before}${headers['content-length']}${head.after}`,
        body,
        headers['content-length'] as number,
        headers,
      )
    )
      return noted(note, headers, body, status);
  }
  noted(note, sent, body, status);
  const final = finalStatus(res, status, sent);
  res.writeHead(final, sent);
  res.end(body);
  return final;
}

/**
 * Heads of answers that carry only our own headers, by status, then first header and content type
 * (a short list each). A key joined per answer (`201|content-type|application/json`) was flattened
 * and hashed every time: ~1,800 instructions a collection create under callgrind (S8).
 */
const OWN_HEADS = new Map<number, { first: string; type: string; head: PreparedHead | null }[]>();
let ownHeads = 0;

/**
 * The prepared head of an answer whose headers are only ours — a content type, `*` for CORS, our
 * sandbox policy and the length (GraphQL answers, collection answers, applied webhook answers):
 * spelled once per status and content type, so such answers take the prepared, end-of-turn path
 * as a fixed one does. Undefined for any other header set.
 */
function ownHead(status: number, h: Readonly<OutHeaders>): PreparedHead | null | undefined {
  let n = 0;
  let first = '';
  let type = '';
  for (const k in h) {
    if (n++ === 0) first = k;
    if (k === 'content-type') type = String(h[k]);
    else if (k === CORS) {
      if (h[k] !== '*') return undefined;
    } else if (k === CSP) {
      if (h[k] !== MOCK_CSP) return undefined;
    } else if (k !== 'content-length') return undefined;
  }
  if (typeof h['content-length'] !== 'number') return undefined;
  let known = OWN_HEADS.get(status);
  if (known !== undefined)
    for (let i = 0; i < known.length; i++) if (known[i].first === first && known[i].type === type) return known[i].head;
  if (ownHeads >= 256) {
    OWN_HEADS.clear();
    ownHeads = 0;
    known = undefined;
  }
  if (known === undefined) {
    known = [];
    OWN_HEADS.set(status, known);
  }
  const head = prepareHead(status, h, null);
  known.push({ first, type, head });
  ownHeads++;
  return head;
}

/**
 * Answers are written as strings (UTF-8): node then joins the head and a string body into one
 * chunk, where a Buffer body is a chunk of its own (a prepared head takes the body as its tail and
 * goes out alone: prepared-head.ts).
 */
export function writeDefault(
  res: ServerResponse,
  ep: CompiledEndpoint,
  body: string,
  length: number,
  note: AnswerNote,
  ctx?: MockContext,
): number {
  const headers = defaultHeadersOf(ep, length, ctx);
  const head = defaultHead(ep);
  if (
    head &&
    !note.checkAnswer &&
    sendPrepared(res, ep.statusCode, head.before + length + head.after, body, length, headers)
  )
    return noted(note, headers, body, ep.statusCode);
  return writeAnswer(res, ep.statusCode, headers, body, note);
}

const defaultHeaders = (contentType: string, length: number): OutHeaders =>
  contentType === ''
    ? { 'content-length': length, [CORS]: '*', [CSP]: MOCK_CSP }
    : { 'content-type': contentType, 'content-length': length, [CORS]: '*', [CSP]: MOCK_CSP };

/** The default answer's headers: the endpoint's own (rendered with `ctx`), then ours. */
function defaultHeadersOf(ep: CompiledEndpoint, length: number, ctx?: MockContext): OutHeaders {
  if (ep.headers.length === 0) return defaultHeaders(ep.contentType, length);
  const own: [string, string][] = [];
  for (const [k, t] of ep.headers) own.push([k, ctx ? t(ctx) : (t.constant ?? '')]);
  return answerHeaders(own, ep.contentType, length);
}

/** The endpoint's default head, spelled on its first answer (prepared-head.ts); none when a header is templated. */
function defaultHead(ep: CompiledEndpoint): PreparedHead | null {
  if (ep.head === undefined)
    ep.head = ep.headersTemplated
      ? null
      : prepareHead(ep.statusCode, defaultHeadersOf(ep, 0), ep.fixedBody === null ? null : ep.fixedLength);
  return ep.head;
}

/** The endpoint's fixed default answer, with its shared headers. */
export function writeFixed(
  res: ServerResponse,
  ep: CompiledEndpoint & { fixedBody: string },
  note: AnswerNote,
): number {
  ep.fixedHeaders ??= defaultHeadersOf(ep, ep.fixedLength);
  const head = defaultHead(ep)?.whole;
  const status =
    head &&
    !note.checkAnswer &&
    sendPrepared(res, ep.statusCode, head, ep.fixedBody, ep.fixedLength, ep.fixedHeaders, true)
      ? noted(note, ep.fixedHeaders, ep.fixedBody, ep.statusCode)
      : writeAnswer(res, ep.statusCode, ep.fixedHeaders, ep.fixedBody, note);
  note.sentShared = true;
  return status;
}

/** A template rendered past its cap: `500 render_too_large` (docs/limits.md). */
export function renderTooLarge(res: ServerResponse, err: CapExceeded): number {
  sendError(res, 500, jsonError('render_too_large', err.message));
  return 500;
}

/** The default answer, fixed or rendered (an endpoint has one of the two): the status written. */
export function writeRendered(res: ServerResponse, ep: CompiledEndpoint, ctx: MockContext, note: AnswerNote): number {
  if (ep.fixedBody !== null) return writeFixed(res, ep as CompiledEndpoint & { fixedBody: string }, note);
  const body = ep.defaultBody?.(ctx) ?? '';
  return writeDefault(res, ep, body, Buffer.byteLength(body), note, ctx);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Writes a step's answer (or its fault), after its delay: the status written, 0 for a fault.
 * Throws CapExceeded (before anything is written) when a template renders past its cap.
 */
export function writeStep(
  res: ServerResponse,
  ep: CompiledEndpoint,
  step: CompiledStep,
  ctx: MockContext,
  rng: () => number,
  note: AnswerNote,
): number | Promise<number> {
  if (step.stream !== null) return streamStep(res, ep, step, step.stream, ctx, rng, note);
  // render before waiting, so the answer reflects the request as it was evaluated
  let body: string;
  let headers: Readonly<OutHeaders>;
  if (step.fixed) {
    body = step.fixed.body;
    headers = step.fixed.headers;
  } else {
    body = step.body(ctx);
    headers = stepHeaders(step, ep, ctx, Buffer.byteLength(body));
  }
  const wait =
    step.delayMaxMs > step.delayMs
      ? step.delayMs + Math.floor(rng() * (step.delayMaxMs - step.delayMs + 1))
      : step.delayMs;
  note.sentStep = step;
  note.sentDelay = wait;
  if (wait > 0) return sleep(wait).then(() => emitStep(res, ep, step, body, headers, note));
  return emitStep(res, ep, step, body, headers, note);
}

/** A templated step's headers, rendered: its own, its content type (else the endpoint's), ours. */
export function stepHeaders(
  step: CompiledStep,
  ep: CompiledEndpoint,
  ctx: MockContext,
  length: number,
  contentType?: string,
): OutHeaders {
  const own: [string, string][] = [];
  for (const [k, v] of step.headers) own.push([k, v(ctx)]);
  const given = contentType ?? (step.contentType ? step.contentType(ctx) : ep.contentType);
  return answerHeaders(own, sendableHeaderValue(given) ? given : ep.contentType, length);
}

function emitStep(
  res: ServerResponse,
  ep: CompiledEndpoint,
  step: CompiledStep,
  body: string,
  headers: Readonly<OutHeaders>,
  note: AnswerNote,
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
  const head = step.fixed?.head?.whole;
  if (
    head &&
    !note.checkAnswer &&
    sendPrepared(res, step.statusCode, head, body, headers['content-length'] as number, headers, true)
  ) {
    noted(note, headers, body, step.statusCode);
    note.sentShared = true;
    return step.statusCode;
  }
  try {
    const status = writeAnswer(res, step.statusCode, headers as OutHeaders, body, note);
    note.sentShared = step.fixed !== null;
    return status;
  } catch {
    // a header node refuses after all (e.g. a name that clashes with content-length): the bare answer
    if (res.headersSent) return 0;
    return writeAnswer(res, step.statusCode, answerHeaders([], ep.contentType, Buffer.byteLength(body)), body, note);
  }
}
