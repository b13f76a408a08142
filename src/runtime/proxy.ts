/**
 * The fallback proxy: a mock request that matches no endpoint of a project with a `fallbackUrl` is
 * forwarded there through the SSRF-safe egress client, and the target's answer is sent back with
 * hop-by-hop headers removed and the mock answers' isolation headers applied (respond.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MockRequestView } from './context.js';
import { type Egress, EgressError, HOP_HEADER, parseHops } from './egress.js';
import { type AnswerNote, answerHeaders, jsonError, sendError, VIOLATIONS_HEADER } from './respond.js';

/** A request that passed through this service this many times is not forwarded again. */
export const MAX_PROXY_HOPS = 3;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
]);

/** What the target answered, for the recorder (record mode). */
export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string>;
  /** the bytes as sent, content-encoding included */
  bytes: Buffer;
  /** [bytes so far, ms after the head] per piece as it arrived: a recorded stream's timing */
  arrivals?: [number, number][];
}

/** Forwards the request to `base` + its path; the status sent to the client. */
export async function proxy(
  egress: Egress,
  base: string,
  view: MockRequestView,
  rawBody: Buffer | null,
  req: IncomingMessage,
  res: ServerResponse,
  onAnswer?: (a: ProxiedAnswer) => void,
  /** the contract's answer check (docs/contract.md): "the real API drifted" is seen as "our mocks drifted" */
  checkAnswer?: AnswerNote['checkAnswer'],
): Promise<number> {
  const headers: Record<string, string> = {};
  const requestHops = connectionTokens(view.headers.connection);
  for (const [k, v] of Object.entries(view.headers)) if (!HOP_BY_HOP.has(k) && !requestHops.has(k)) headers[k] = v;
  const hops = parseHops(view.headers[HOP_HEADER]);
  headers[HOP_HEADER] = String(hops + 1);
  const target = base.replace(/\/+$/, '') + view.path + (view.rawQuery ? `?${view.rawQuery}` : '');
  try {
    if (hops >= MAX_PROXY_HOPS) throw new EgressError('blocked', 'blocked: too many hops');
    const r = await egress.request({
      url: target,
      method: view.method,
      headers,
      body: view.method === 'GET' || view.method === 'HEAD' ? undefined : (rawBody ?? undefined),
      timeoutMs: 10_000,
      followRedirects: false,
    });
    // the bytes as the target sent them, content-encoding included (the client decodes)
    const body = r.bytes ?? Buffer.from(r.body);
    const responseHops = connectionTokens(r.headers.connection);
    const own: [string, string][] = [];
    for (const [k, v] of Object.entries(r.headers)) if (!HOP_BY_HOP.has(k) && !responseHops.has(k)) own.push([k, v]);
    const out = answerHeaders(own, r.headers['content-type'] ?? 'application/octet-stream', body.length);
    if (r.headers['content-type'] === undefined) delete out['content-type'];
    const violations = checkAnswer?.(r.status, r.headers, r.body) ?? 0;
    if (violations > 0) out[VIOLATIONS_HEADER] = String(violations);
    res.writeHead(r.status, out);
    res.end(req.method === 'HEAD' ? undefined : body);
    onAnswer?.({ status: r.status, headers: r.headers, bytes: body, arrivals: r.arrivals });
    return r.status;
  } catch (err) {
    const msg = err instanceof EgressError ? err.message : 'fallback failed';
    sendError(res, 502, jsonError('bad_gateway', `The fallback target could not be reached (${msg})`));
    return 502;
  }
}

/** Header names a Connection header lists: hop-by-hop as well (RFC 9110 §7.6.1). */
function connectionTokens(value: string | undefined): Set<string> {
  if (!value) return new Set();
  return new Set(
    value
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean),
  );
}
