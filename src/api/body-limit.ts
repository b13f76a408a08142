/**
 * A `413 payload_too_large` that reaches the client (docs/limits.md). Answering while the client is
 * still uploading and then closing the connection makes most clients report a broken pipe (EPIPE)
 * or a reset instead of the answer. So an over-limit body is read and thrown away first — up to
 * twice the limit, past which the connection is closed after the answer — and the 413 is sent once
 * the upload is over.
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';
import { drain } from '../runtime/drain.js';

const tooLarge = () => new AppError('payload_too_large');

/**
 * Passes a body through up to `limit` bytes; past it passes nothing more, reads the rest (up to
 * twice the limit) and then fails with 413, so the answer follows the whole upload.
 */
class LimitedBody extends Transform {
  private seen = 0;
  receivedEncodedLength = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    this.receivedEncodedLength = Math.min(this.seen, this.limit);
    if (this.seen <= this.limit) done(null, chunk);
    else if (this.seen > 2 * this.limit) done(tooLarge());
    else done();
  }
  override _flush(done: TransformCallback): void {
    done(this.seen > this.limit ? tooLarge() : null);
  }
}

export function deliverPayloadTooLarge(app: FastifyInstance, defaultLimit: number): void {
  // a declared length over the route's limit: read it all, then answer (no parser runs)
  app.addHook('onRequest', async (req, reply) => {
    const declared = Number(req.headers['content-length']);
    const limit = req.routeOptions.bodyLimit ?? defaultLimit;
    if (!(declared > limit)) return;
    const ended = await drain(req.raw, 2 * limit);
    if (!ended) reply.header('connection', 'close');
    throw tooLarge();
  });
  // a chunked body: counted as it arrives
  app.addHook('preParsing', async (req, _reply, payload) => {
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] === undefined) return payload;
    const limit = req.routeOptions.bodyLimit ?? defaultLimit;
    return payload.pipe(new LimitedBody(limit));
  });
}
