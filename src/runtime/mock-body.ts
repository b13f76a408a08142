/** Reading a mock request's body (1 MiB cap, over-limit bodies drained first) and the log's clock. */
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { drain } from './drain.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** A body over the limit; `drained` when it was read to its end (the connection can stay open). */
export class BodyTooLarge extends Error {
  constructor(readonly drained: boolean) {
    super('body too large');
  }
}

/** Who hears a body that `readBody` reads later: `to.read(x, bytes)` or `to.failed(x, err)`, once. */
export interface BodyTo<X> {
  read(x: X, raw: Buffer): void;
  failed(x: X, err: unknown): void;
}

/**
 * '' when there is no body (nothing to wait for); else undefined, and `to` hears the bytes as
 * received (the fallback proxy forwards them unchanged) — no promise a request. A body over the
 * limit is read on to its end (up to twice the limit) before the 413 (`BodyTooLarge`), so the
 * client gets the answer rather than a broken pipe (see src/api/body-limit.ts).
 */
export function readBody<X>(req: IncomingMessage, x: X, to: BodyTo<X>): '' | undefined {
  const len = req.headers['content-length'];
  if (len === undefined && req.headers['transfer-encoding'] === undefined) return '';
  if (len === '0') return '';
  if (len !== undefined && Number(len) > MAX_BODY_BYTES) {
    drain(req, 2 * MAX_BODY_BYTES).then(
      (ended) => to.failed(x, new BodyTooLarge(ended)),
      (err) => to.failed(x, err),
    );
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const fail = (err: unknown) => {
    if (done) return;
    done = true;
    to.failed(x, err);
  };
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_BODY_BYTES) {
      chunks.length = 0;
      if (size > 2 * MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        fail(new BodyTooLarge(false));
      }
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (size > MAX_BODY_BYTES) fail(new BodyTooLarge(true));
    else if (!done) {
      done = true;
      to.read(x, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    }
  });
  req.on('error', fail);
  return undefined;
}

let lastMs = 0;
let lastIso = '';
/** wall-clock ms minus monotonic ms, taken again once a second (NTP may slew the wall clock) */
let offset = Date.now() - performance.now();
let offsetAt = performance.now();
/**
 * The wall-clock time of the monotonic instant `mono` (`performance.now()`) as ISO 8601, formatted
 * at most once per millisecond. A request reads the clock once for both its log time and its
 * duration: each clock read is a `clock_gettime` call, ~0.07 µs on a VM (perf, S1).
 */
export function isoAt(mono: number): string {
  if (mono - offsetAt > 1000 || mono < offsetAt) {
    offsetAt = performance.now();
    offset = Date.now() - offsetAt;
  }
  const ms = Math.floor(mono + offset);
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = isoOfMs(ms);
  }
  return lastIso;
}

/** "000Z" … "999Z": the milliseconds and zone that end an ISO 8601 time */
const MS_Z = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, '0')}Z`);
let secondStart = Number.NaN;
let secondPrefix = '';
/**
 * `new Date(ms).toISOString()`, with the part up to the second ("2026-11-25T01:11:28.") formatted
 * once a second: `toISOString` goes through V8's printf, ~6,800 instructions a call (callgrind),
 * which at moderate load, where each request has a millisecond of its own, is paid per request.
 */
export function isoOfMs(ms: number): string {
  const sub = ((ms % 1000) + 1000) % 1000;
  const second = ms - sub;
  if (second !== secondStart) {
    secondStart = second;
    secondPrefix = new Date(second).toISOString().slice(0, -4);
  }
  return secondPrefix + MS_Z[sub];
}
