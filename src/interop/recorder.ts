/**
 * Record mode (docs/interop.md "Record"): with a project's `recording` on, every mock request is
 * proxied to its fallbackUrl (through the SSRF-safe egress, proxy.ts) and each answer becomes a mock —
 * the first answer on a method and path an endpoint, an answer to a request that differs by query
 * or body a rule matching that query and body. The same variant again records nothing. Writes run
 * after the answer is sent, one at a time per process, so a burst of requests neither races on one
 * route nor holds the mock path.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Logger } from 'pino';
import { RULE_LIMITS } from '../domain/constants.js';
import { AppError } from '../domain/errors.js';
import type { Plan } from '../domain/model.js';
import { validateEndpoint, validateRule } from '../domain/validate.js';
import type { Recorder as RecorderPort, Recording } from '../runtime/ports.js';
import type { ProxiedAnswer } from '../runtime/proxy.js';
import { routeKey } from '../runtime/router.js';
import type { Store } from '../store/index.js';
import { variantConditions } from './matchers.js';
import { patternOf } from './route-book.js';
import { recordedEvents } from './sse-record.js';
import { verbatim } from './templates.js';

export type { Recording };

const DECODERS: Record<string, (b: Buffer, o: zlib.ZlibOptions | zlib.BrotliOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/** The decoded answer would be larger than the recorder inflates. */
export class TooLargeToRecord extends Error {
  override readonly name = 'TooLargeToRecord';
}

/**
 * The body as text, decoded from its content-encoding, inflating at most `maxBytes` (zlib stops
 * there: a small gzip bomb never becomes a large buffer); null when it is not UTF-8 text.
 */
export async function textOf(a: ProxiedAnswer, maxBytes: number): Promise<string | null> {
  let bytes = a.bytes;
  const encoding = (a.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    const decode = DECODERS[encoding];
    if (!decode) return null;
    try {
      bytes = await decode(bytes, { maxOutputLength: maxBytes });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError)
        throw new TooLargeToRecord(`the decoded answer is larger than ${maxBytes} bytes`);
      return null;
    }
  }
  if (bytes.length > maxBytes) throw new TooLargeToRecord(`the answer is larger than ${maxBytes} bytes`);
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : null;
}

export class Recorder implements RecorderPort {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    /** bytes inflated of one answer at most (MOCKYARD_MAX_RECORD_BYTES) */
    private readonly maxBytes = 16 * 1024 * 1024,
  ) {}

  /**
   * Queues one proxied exchange; never throws (a failed recording is logged). Resolves, once the
   * answer is decoded, with a warning for the request log when it will not be recorded, else null.
   */
  record(r: Recording): Promise<string | null> {
    let warn: (w: string | null) => void = () => {};
    const warned = new Promise<string | null>((resolve) => {
      warn = resolve;
    });
    this.chain = this.chain.then(() =>
      this.write(r, warn)
        .catch((err) => this.log.warn({ err, projectId: r.projectId }, 'recording failed'))
        .finally(() => warn(null)),
    );
    return warned;
  }

  /** Resolves when every queued recording is written (tests, shutdown). */
  settled(): Promise<void> {
    return this.chain;
  }

  private async write(r: Recording, warn: (w: string | null) => void): Promise<void> {
    const owner = await this.store.projects.ownerOf(r.projectId);
    if (!owner) return;
    let body: string | null;
    try {
      body = await textOf(r.answer, this.maxBytes);
    } catch (e) {
      if (!(e instanceof TooLargeToRecord)) throw e;
      this.log.warn({ projectId: r.projectId, path: r.path }, `not recorded: ${e.message}`);
      warn(`not recorded: ${e.message}`);
      return;
    }
    warn(null);
    if (body === null) {
      this.log.info({ projectId: r.projectId, path: r.path }, 'not recorded: the answer is not text');
      return;
    }
    const contentType = r.answer.headers['content-type'] ?? (body === '' ? '' : 'application/octet-stream');
    const pattern = patternOf(r.path, { params: false });
    const conditions = variantConditions(r.rawQuery, r.requestBody);
    const endpoints = await this.store.endpoints.list(owner.id, r.projectId);
    const key = `${r.method} ${routeKey(pattern)}`;
    let endpoint = endpoints.find((e) => `${e.method} ${routeKey(e.path)}` === key);
    // served as recorded: `{{` in an answer is text, not a template
    const step: Record<string, unknown> = {
      statusCode: r.answer.status,
      body: verbatim(body),
      headers: contentType ? { 'content-type': contentType } : {},
    };
    // an upstream stream becomes an `events` step with the delays it showed, always as a rule (an
    // endpoint's own answer is one body)
    const sse = contentType.toLowerCase().startsWith('text/event-stream');
    if (sse) {
      const encoded = (r.answer.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      const events = recordedEvents(body, encoded === 'identity' || encoded === '' ? (r.answer.arrivals ?? []) : []);
      Object.assign(step, { body: '', events });
    }
    if (!endpoint) {
      const input = validateEndpoint({
        method: r.method,
        path: pattern,
        statusCode: r.answer.status,
        responseBody: verbatim(body),
        contentType,
      });
      endpoint = await this.store.endpoints.create(owner.id, r.projectId, input);
      if (conditions.length === 0 && !sse) return;
    } else {
      const rules = await this.store.rules.list(owner.id, r.projectId, endpoint.id);
      const same = JSON.stringify(conditions);
      if ((conditions.length === 0 && !sse) || rules.some((x) => JSON.stringify(x.conditions) === same)) return;
    }
    const name = (
      conditions.length === 0
        ? 'recorded stream'
        : `recorded ${conditions.map((c) => `${c.key ?? c.target}=${c.value ?? ''}`).join(' ')}`
    ).slice(0, 100);
    const rule = validateRule({ name, conditions, response: { mode: 'loop', steps: [step] } });
    try {
      await this.store.rules.create(
        owner.id,
        r.projectId,
        endpoint.id,
        rule,
        RULE_LIMITS[owner.plan as Plan] ?? RULE_LIMITS.free,
      );
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'plan_limit_exceeded')) throw e;
      this.log.info(
        { projectId: r.projectId, path: r.path },
        'not recorded: the plan’s rules per endpoint are used up',
      );
    }
  }
}
