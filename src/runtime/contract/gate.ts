/**
 * Contract validation on the mock path (docs/contract.md): the request is checked before the mock
 * runs — `enforce` answers `application/problem+json` instead, `warn` lets it through with
 * `X-Mockyard-Violations` — and the answer, when `responses` is `warn`, before it is written.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { headerMode, type Violation } from '../../domain/contract.js';
import type { CompiledProject } from '../compile.js';
import type { Exchange } from '../exchange.js';
import { CORS, CSP, MOCK_CSP, VIOLATIONS_HEADER } from '../respond.js';
import { requestViolations } from './request.js';
import { responseViolations } from './response.js';

export const VALIDATE_HEADER = 'x-mockyard-validate';

function problem(res: ServerResponse, status: number, violations: Violation[]): void {
  const body = JSON.stringify({
    type: 'request_validation_failed',
    title: 'The request does not match the API contract',
    status,
    violations,
  });
  res.writeHead(status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
    [VIOLATIONS_HEADER]: String(violations.length),
    [CORS]: '*',
    [CSP]: MOCK_CSP,
  });
  res.end(body);
}

/**
 * Checks a mock request of a project with a contract. Answers the status written when the request
 * was refused (enforce), else null (the mock goes on; the answer check, if any, is set on `x`).
 */
export function checkRequest(
  x: Exchange,
  project: CompiledProject,
  req: IncomingMessage,
  res: ServerResponse,
): number | null {
  const contract = project.contract;
  if (!contract) return null;
  const match = project.router.match(x.method, x.path);
  const modes = match?.value.validation ?? project.validation;
  const mode = headerMode(req.headers[VALIDATE_HEADER]) ?? modes.requests;
  const found = contract.match(x.method, x.path);
  let request: Violation[] = [];
  if (mode !== 'off') {
    request = found
      ? requestViolations(found.op, found.params, x.view())
      : [{ in: 'operation', message: `no operation of the contract matches ${x.method} ${x.path}` }];
    if (request.length > 0) {
      x.violations = { request, response: [] };
      if (mode === 'enforce') {
        problem(res, modes.status, request);
        return modes.status;
      }
      res.setHeader(VIOLATIONS_HEADER, String(request.length));
    }
  }
  if (modes.responses === 'warn' && found) {
    const op = found.op;
    x.checkAnswer = (status, headers, body) => {
      const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
      const response = responseViolations(op, status, (name) => lower.get(name), body);
      if (response.length > 0) x.violations = { request, response };
      return request.length + response.length;
    };
  }
  return null;
}
