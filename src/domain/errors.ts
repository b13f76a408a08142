/**
 * Every error code the service answers with, its HTTP status and default message: one table
 * (docs/api.md "Conventions"). Domain code throws AppError; the HTTP edge maps it to
 * `{error: {code, message, details?}}` and turns anything else into a logged 500.
 */

export const ERRORS = {
  invalid_json: { status: 400, message: 'The request body is not valid JSON' },
  invalid_body: { status: 400, message: 'The body must be a JSON object' },
  validation_failed: { status: 400, message: 'The request is not valid' },
  template_invalid: { status: 400, message: 'The template does not parse' },
  unknown_format: {
    status: 400,
    message:
      'The document is none of the formats an import takes (OpenAPI, Swagger, WireMock, Mockoon, Postman, HAR, Mockyard)',
  },
  unauthorized: { status: 401, message: 'A valid bearer token is required' },
  invalid_credentials: { status: 401, message: 'Wrong email or password' },
  plan_limit_exceeded: { status: 403, message: 'The plan does not allow more rules on this endpoint' },
  forbidden: { status: 403, message: 'This API key does not allow this request' },
  not_found: { status: 404, message: 'No such record' },
  mock_not_found: { status: 404, message: 'No mock endpoint matches this request' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  request_timeout: { status: 408, message: 'The request was not received in time' },
  conflict: { status: 409, message: 'The record conflicts with an existing one' },
  payload_too_large: { status: 413, message: 'The request body is larger than the limit' },
  unsupported_media_type: {
    status: 415,
    message: 'Management writes take a JSON body (Content-Type: application/json)',
  },
  limit_exceeded: { status: 422, message: 'A resource limit was reached' },
  document_too_complex: {
    status: 422,
    message: 'The document needs more time or memory to validate than an import may use',
  },
  upgrade_required: {
    status: 426,
    message: 'This endpoint is a WebSocket: connect with an Upgrade: websocket request',
  },
  rate_limited: { status: 429, message: 'Too many attempts; try again later' },
  header_too_large: { status: 431, message: 'The request headers are larger than 32 KiB' },
  loop_detected: { status: 508, message: 'The request passed through this service too many times' },
  internal: { status: 500, message: 'Internal error' },
  render_too_large: { status: 500, message: 'A template of this answer rendered more than the limit' },
  bad_gateway: { status: 502, message: 'The fallback target could not be reached' },
  unavailable: { status: 503, message: 'The service is temporarily unavailable' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorDetail {
  path: string;
  message: string;
  /** where in a template the problem is (a template that does not parse) */
  line?: number;
  column?: number;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetail[];

  constructor(code: ErrorCode, message?: string, details?: ErrorDetail[]) {
    super(message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = details;
  }
}

export const validationError = (details: ErrorDetail[], message?: string): AppError =>
  new AppError(
    'validation_failed',
    message ?? details.map((d) => `${d.path || '/'}: ${d.message}`).join('; '),
    details,
  );

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

/**
 * The error body of `code` without making an Error: mock answers under load (a 404 flood, a full
 * collection) would otherwise capture a stack trace per answer.
 */
export function errorOf(code: ErrorCode, message?: string): ErrorBody {
  return { error: { code, message: message ?? ERRORS[code].message } };
}

export function errorBody(err: AppError): ErrorBody {
  const body: ErrorBody = { error: { code: err.code, message: err.message } };
  if (err.details && err.details.length > 0) body.error.details = err.details;
  return body;
}
