/**
 * The HTTP edge of errors: AppError → its status and body; Fastify's own errors (validation, body
 * too large, unsupported media type) → the contract's codes; anything else → a logged 500 with no
 * detail. A stack trace never leaves the process.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody } from '../domain/errors.js';
import { detailsOf } from '../domain/validator.js';

export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError & { validation?: Parameters<typeof detailsOf>[0] };
  if (fe?.validation) {
    const details = detailsOf(fe.validation);
    return new AppError('validation_failed', details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
  }
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('validation_failed', 'Content-Length does not match the body', [
        { path: '/', message: 'Content-Length does not match the body' },
      ]);
  }
  if (fe?.statusCode === 413) return new AppError('payload_too_large');
  if (fe?.statusCode === 415) return new AppError('unsupported_media_type');
  return null;
}

export function sendError(err: unknown, req: FastifyRequest, reply: FastifyReply): void {
  let app = toAppError(err);
  if (app?.code === 'payload_too_large') {
    const limit = req.routeOptions?.bodyLimit ?? 1024 * 1024;
    app = new AppError('payload_too_large', `The request body is larger than ${+(limit / 1048576).toFixed(2)} MiB`);
  }
  if (app) {
    if (app.status === 503) req.log.warn({ err }, 'service unavailable');
    reply.code(app.status).type('application/json').send(errorBody(app));
    return;
  }
  const status = (err as FastifyError)?.statusCode;
  if (status && status >= 400 && status < 500) {
    const e = new AppError('validation_failed', 'The request is not valid', [
      { path: '/', message: 'malformed request' },
    ]);
    reply.code(400).type('application/json').send(errorBody(e));
    return;
  }
  req.log.error({ err }, 'unhandled error');
  reply
    .code(500)
    .type('application/json')
    .send(errorBody(new AppError('internal')));
}
