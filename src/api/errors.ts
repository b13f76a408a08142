/**
 * The HTTP edge of errors: AppError → its status and body; Fastify's own errors (validation, body
 * too large, unsupported media type) → the contract's codes; anything else → a logged 500 with no
 * detail. A stack trace never leaves the process.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ACTION_TYPES } from '../domain/constants.js';
import { AppError, type ErrorDetail, errorBody } from '../errors.js';

interface AjvError {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
}

/**
 * Ajv's errors → details. A union (`response: Response | null`) makes Ajv report every branch;
 * the precise errors of the branch that was meant are kept, the generic `anyOf` summary and the
 * "must be null" of the other branch are dropped when anything more specific exists.
 */
function detailsOf(all: AjvError[]): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  const generic = (e: AjvError) => e.keyword === 'anyOf' || (e.keyword === 'type' && e.params?.type === 'null');
  const specific = all.filter((e) => !generic(e));
  const errors = specific.length > 0 ? specific : all;
  for (const e of errors) {
    let path = e.instancePath || '';
    let message = e.message ?? 'is not valid';
    if (e.keyword === 'required' && e.params?.missingProperty) {
      path = `${path}/${String(e.params.missingProperty)}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties' && e.params?.additionalProperty) {
      path = `${path}/${String(e.params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (e.keyword === 'discriminator') {
      // a union picked by a tag (actions by `type`): the tag is missing or names no branch
      if (e.params?.error === 'tag' && all.some((x) => x.keyword === 'required')) continue;
      path = `${path}/${String(e.params?.tag ?? 'type')}`;
      message = `must be one of ${ACTION_TYPES.join(', ')}`;
    } else if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
      message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    }
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: path || '/', message: `${path.split('/').pop() || 'body'} ${message}` });
  }
  return out;
}

export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError & { validation?: AjvError[] };
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
