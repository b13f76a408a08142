/**
 * An answer against its contract operation (docs/contract.md, `responses: "warn"`): the status is
 * declared (or `default`), its content type and required headers, and the body against the schema
 * (`writeOnly` properties may not appear).
 */
import type { Violation } from '../../domain/contract.js';
import type { Operation, ResponseCheck } from './compile.js';
import { mediaType, pickMedia } from './request.js';
import { violationsOf } from './schema.js';

function responseFor(op: Operation, status: number): ResponseCheck | null {
  const r = op.checks().responses;
  return r.get(String(status)) ?? r.get(`${String(status)[0]}XX`) ?? r.get('DEFAULT') ?? null;
}

/** Everything about the answer the operation does not declare (empty when it conforms). */
export function responseViolations(
  op: Operation,
  status: number,
  headers: (name: string) => string | undefined,
  body: string,
): Violation[] {
  const r = responseFor(op, status);
  if (!r) return [{ in: 'status', message: `status ${status} is not declared for ${op.id}` }];
  const out: Violation[] = [];
  for (const h of r.requiredHeaders)
    if (headers(h) === undefined)
      out.push({ in: 'header', name: h, message: `required header ${h} is missing from the answer` });
  if (r.media.length === 0) return out;
  const type = mediaType(headers('content-type'));
  const m = pickMedia(r.media, type);
  if (!m) {
    out.push({
      in: 'header',
      name: 'content-type',
      message: `content type ${type || '(none)'} is not one of ${r.media.map((x) => x.type).join(', ')}`,
    });
    return out;
  }
  if (!m.check || !(type.includes('json') || m.type.includes('json'))) return out;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    out.push({ in: 'body', pointer: '', message: 'the answer is not valid JSON' });
    return out;
  }
  const errors = m.check(value);
  if (errors) out.push(...violationsOf(errors, 'body'));
  return out;
}
