/**
 * A request log entry as the hot path records it (LogRecord) and as it is stored and streamed
 * (`settle`: the id spelled, headers flattened and redacted, the answer sent).
 */

import { seqId } from '../domain/ids.js';
import type { RequestLogEntry } from '../domain/model.js';
import { headersFromRaw } from './context.js';
import type { AnswerNote } from './respond.js';

/**
 * A mock request as the hot path records it: a sequence number for the id, and node's raw header
 * lines. Both are spelled out (id; headers flattened and redacted) only when the entry is streamed
 * or written: under a flood most entries are overwritten before that.
 */
export type LogRecord = Omit<RequestLogEntry, 'headers' | 'id' | 'response'> & {
  seq: number;
  rawHeaders: readonly string[];
  /** the body's bytes as received, when the exchange kept them (copied into the log as they are) */
  rawBody?: Buffer | null;
} & AnswerNote;
export type Pending = RequestLogEntry | LogRecord;

const CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie'];
let REDACTED = CREDENTIALS;

/**
 * Header names stored and streamed as `[redacted]` besides the credentials (MOCKYARD_REDACT_HEADERS,
 * set once at start by server.ts; lower case).
 */
export function configureRedaction(extra: readonly string[]): void {
  REDACTED = [...new Set([...CREDENTIALS, ...extra.map((h) => h.toLowerCase())])];
}
/** The answer's body is logged up to this many characters (as the request's). */
export const SENT_BODY_CHARS = 64 * 1024;
/** The request's body is logged up to this many characters (exchange.ts cuts it there). */
export const LOGGED_BODY_CHARS = 64 * 1024;

/** A string's first `n` characters as a string of their own (a slice would keep the whole alive). */
const cut = (s: string, n: number): string => Buffer.from(s.slice(0, n), 'utf8').toString('utf8');

function sentAnswer(p: LogRecord): RequestLogEntry['response'] {
  const step = p.sentStep;
  if (p.sentHeaders === null && step === null) return undefined;
  const headers: Record<string, string> = {};
  if (p.sentHeaders)
    for (const [k, v] of Object.entries(p.sentHeaders)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
  const out: NonNullable<RequestLogEntry['response']> = { headers, body: p.sentBody };
  if (p.sentBody.length > SENT_BODY_CHARS) {
    out.body = cut(p.sentBody, SENT_BODY_CHARS);
    out.truncated = true;
  }
  if (step) {
    out.step = { index: step.index, of: step.of };
    if (p.sentDelay > 0) out.delayMs = p.sentDelay;
    if ((p.sentEvents ?? 0) > 0) out.events = p.sentEvents;
    if (p.sentEventTimes && p.sentEventTimes.length > 0) out.eventTimes = p.sentEventTimes;
    if (step.fault) out.fault = step.fault;
  }
  return out;
}

/** The entry as it is stored and streamed: credentials in headers replaced by `[redacted]`. */
export function settle(p: LogRecord): RequestLogEntry {
  const headers = headersFromRaw(p.rawHeaders);
  for (const k of REDACTED) if (k in headers) headers[k] = '[redacted]';
  const e: RequestLogEntry = {
    id: seqId(p.seq),
    at: p.at,
    method: p.method,
    path: p.path,
    query: p.query,
    headers,
    body: p.body,
    endpointId: p.endpointId,
    ruleId: p.ruleId,
    statusCode: p.statusCode,
    durationMs: p.durationMs,
    actions: p.actions,
    rules: p.rules,
  };
  if (p.proxied) e.proxied = true;
  if (p.session) e.session = p.session;
  if (p.error) e.error = p.error;
  if (p.warning) e.warning = p.warning;
  if (p.nearest && p.nearest.length > 0) e.nearest = p.nearest;
  if (p.data) e.data = p.data;
  if (p.violations) e.violations = p.violations;
  if (p.kind) {
    e.kind = p.kind;
    e.direction = p.direction;
    e.event = p.event;
    e.socketId = p.socketId;
  }
  const response = sentAnswer(p);
  if (response) e.response = response;
  return e;
}
