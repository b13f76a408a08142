/**
 * SSRF-safe outbound HTTP client for `http_request` actions (docs/actions.md "Blocked targets"):
 * a separate module with its own tests.
 *
 * For every hop (the first request and each redirect):
 * 1. The URL is parsed with the WHATWG parser, so every spelling of an address (`127.1`, `2130706433`,
 *    `0x7f000001`, `0177.0.0.1`, `[::ffff:7f00:1]`, `127.0.0.1.`, …) is reduced to one canonical form.
 *    Only `http:` and `https:` pass. Userinfo is ignored (never sent, never used for routing).
 * 2. `localhost` and `*.localhost` are blocked without a lookup; other names are resolved ONCE with
 *    all their addresses. If ANY address is not public unicast (see ip-ranges.ts) the hop is refused
 *    before a single packet is sent to the target — no connection, no timing difference.
 * 3. The socket is dialled to the address that was checked (a per-hop undici `Client` whose `connect`
 *    swaps the hostname for the pinned IP), while the Host header and the TLS servername stay the
 *    original hostname. There is no second lookup, so DNS rebinding cannot change the target.
 *
 * Allow-list (`MOCKYARD_ALLOW_TARGETS`): entries are `host:port`, normalized with the same URL parser
 * (so `127.1:80` and `127.0.0.1:80` are one entry, IPv6 in brackets, trailing dots dropped; a port is
 * required). A hop may reach private addresses when
 * - its `host:port` as in the URL (lower-case, default port 80/443 made explicit) is listed — then all
 *   the name's addresses are trusted (this is the only way to reach a `localhost` name), or
 * - every resolved address is either public or listed as `ip:port`.
 * Anything else private stays blocked, including redirects away from an allowed target.
 *
 * Redirects: 301, 302, 303, 307, 308 with a Location are followed up to `maxRedirects` (default 5);
 * one more is an error (`network`, 'too many redirects'). Method rewriting follows fetch: 303 turns
 * anything but HEAD into GET, 301/302 turn POST into GET; the body and its content-* headers are
 * dropped when the method changes. Authorization, Cookie and Proxy-Authorization are dropped when a
 * redirect changes origin. Other 3xx (and 3xx without Location) are returned as answers.
 *
 * Body cap: a response body larger than `maxBodyBytes` (default 1 MiB) is an ERROR (`too_large`), not a
 * truncation: a cut JSON body silently becoming the mock's answer or a variable would be worse than a
 * visible failure in the request log. A Content-Length above the cap is refused before reading; a
 * streamed body is counted as it arrives and the connection is torn down as soon as the cap is passed,
 * so at most `maxBodyBytes` + one chunk (64 KiB) is ever held.
 *
 * Timeout: `timeoutMs` is one deadline for DNS + connect + headers + the whole body (and every
 * redirect hop); past it the request is aborted with `EgressError('timeout', 'timeout after N ms')`.
 * An abort through `signal` (e.g. the actions' shared 10 s budget) is also reported as `timeout`
 * ('aborted'), since for the action pipeline it is one.
 *
 * Errors are `EgressError` with a short message that never echoes addresses or ports:
 * 'invalid url', 'blocked: scheme not allowed', 'blocked: private address', 'blocked: invalid header',
 * 'blocked: method not allowed', 'dns lookup failed', 'connection refused', 'connection reset',
 * 'network unreachable', 'tls error', 'too many redirects', 'network error', 'response too large',
 * 'timeout after N ms', 'aborted'.
 */
import net from 'node:net';
import type { Client, Dispatcher } from 'undici';
import {
  abortable,
  allowSet,
  BODY_HEADERS,
  CREDENTIAL_HEADERS,
  defaultLookup,
  effectivePort,
  FORBIDDEN_METHODS,
  flattenHeaders,
  hostKey,
  ipKey,
  isLocalhostName,
  loadUndici,
  networkError,
  parseTarget,
  pinnedConnector,
  REDIRECTS,
  sanitizeHeaders,
  TOKEN,
} from './egress-helpers.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_REDIRECTS,
  type Egress,
  EgressError,
  type EgressOptions,
  type EgressRequest,
  type EgressResponse,
} from './egress-types.js';
import { canonicalAddress, isBlockedAddress } from './ip-ranges.js';

export * from './egress-types.js';
export { isBlockedAddress } from './ip-ranges.js';

export function createEgress(opts: EgressOptions): Egress {
  const allow = allowSet(opts.allowTargets);
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const lookup = opts.lookup ?? defaultLookup;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) throw new TypeError('maxBodyBytes must be >= 0');
  if (!Number.isSafeInteger(maxRedirects) || maxRedirects < 0) throw new TypeError('maxRedirects must be >= 0');

  const clients = new Set<Client>();
  let closed = false;

  /** Resolves the hop's host once and checks every address; returns the canonical addresses to dial. */
  async function resolveChecked(url: URL, signal: AbortSignal): Promise<string[]> {
    const port = effectivePort(url);
    const nameAllowed = allow.has(hostKey(url.hostname, port));
    const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    let found: string[];
    if (net.isIP(literal)) {
      found = [literal];
    } else {
      const name = literal.replace(/\.+$/, '');
      if (isLocalhostName(name) && !nameAllowed) throw new EgressError('blocked', 'blocked: private address');
      let answers: { address: string }[];
      try {
        answers = await abortable(lookup(name), signal);
      } catch (err) {
        if (signal.aborted) throw err;
        throw new EgressError('network', 'dns lookup failed');
      }
      if (!Array.isArray(answers) || answers.length === 0) throw new EgressError('network', 'dns lookup failed');
      found = answers.map((a) => String(a?.address ?? ''));
    }
    const dial: string[] = [];
    for (const address of found) {
      // Anything that is not an IP literal (or carries a zone id) cannot be dialled as checked.
      if (net.isIP(address) === 0 || address.includes('%')) {
        throw new EgressError('blocked', 'blocked: private address');
      }
      const canonical = canonicalAddress(address);
      const reachable =
        nameAllowed ||
        !isBlockedAddress(address) ||
        allow.has(ipKey(address, port)) ||
        allow.has(ipKey(canonical, port));
      if (!reachable) throw new EgressError('blocked', 'blocked: private address');
      if (!dial.includes(canonical)) dial.push(canonical);
    }
    return dial;
  }

  async function readCapped(
    body: Dispatcher.ResponseData['body'],
    declaredLength: string | undefined,
    arrivals: [number, number][],
  ) {
    if (declaredLength !== undefined && Number(declaredLength) > maxBodyBytes) {
      discard(body);
      throw new EgressError('too_large', 'response too large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const start = performance.now();
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBodyBytes) {
        discard(body);
        throw new EgressError('too_large', 'response too large');
      }
      chunks.push(chunk);
      // when each piece arrived (a recorded stream keeps its timing: docs/streams.md)
      if (arrivals.length < 10_000) arrivals.push([size, Math.round(performance.now() - start)]);
    }
    return Buffer.concat(chunks, size);
  }

  async function run(req: EgressRequest, signal: AbortSignal, timeoutMs: number): Promise<EgressResponse> {
    let method = String(req.method || 'GET').toUpperCase();
    if (!TOKEN.test(method) || FORBIDDEN_METHODS.has(method)) {
      throw new EgressError('blocked', 'blocked: method not allowed');
    }
    const headers = sanitizeHeaders(req.headers);
    let body: string | Buffer | undefined = req.body === undefined || req.body.length === 0 ? undefined : req.body;
    let url = parseTarget(req.url);

    for (let hop = 0; ; hop++) {
      const addresses = await resolveChecked(url, signal);
      const undici = await loadUndici();
      if (closed) throw new EgressError('network', 'egress closed');
      // undici's own timers are coarse (they may fire up to ~0.5 s early), so they only back up the
      // precise deadline of request(), which is what ends a call at timeoutMs
      const backstop = timeoutMs + 1000;
      const client = new undici.Client(url.origin, {
        connect: pinnedConnector(undici, addresses, backstop),
        headersTimeout: backstop,
        bodyTimeout: backstop,
        pipelining: 1,
      });
      clients.add(client);
      try {
        const res = await client.request({
          method: method as Dispatcher.HttpMethod,
          path: url.pathname + url.search,
          headers,
          body,
          signal,
        });
        const location = res.headers.location;
        if (
          req.followRedirects !== false &&
          REDIRECTS.has(res.statusCode) &&
          typeof location === 'string' &&
          location !== ''
        ) {
          discard(res.body);
          if (hop >= maxRedirects) throw new EgressError('network', 'too many redirects');
          const next = parseTarget(location, url);
          if (
            (res.statusCode === 303 && method !== 'HEAD') ||
            ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
          ) {
            method = 'GET';
            body = undefined;
            for (const h of BODY_HEADERS) delete headers[h];
          }
          if (next.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
          url = next;
          continue;
        }
        let bytes = Buffer.alloc(0);
        const arrivals: [number, number][] = [];
        if (method === 'HEAD') discard(res.body);
        else bytes = await readCapped(res.body, firstValue(res.headers['content-length']), arrivals);
        const responseHeaders = flattenHeaders(res.headers);
        return {
          status: res.statusCode,
          headers: responseHeaders,
          body: bytes.toString('utf8'),
          bytes,
          arrivals,
          contentType: responseHeaders['content-type'] ?? '',
          url: url.href.split('#')[0],
        };
      } finally {
        clients.delete(client);
        client.destroy().catch(() => {});
      }
    }
  }

  return {
    async request(req: EgressRequest): Promise<EgressResponse> {
      if (closed) throw new EgressError('network', 'egress closed');
      const timeoutMs = req.timeoutMs;
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError('timeoutMs must be > 0');
      const deadline = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        deadline.abort(new EgressError('timeout', `timeout after ${timeoutMs} ms`));
      }, timeoutMs);
      const onCallerAbort = () => deadline.abort(new EgressError('timeout', 'aborted'));
      if (req.signal?.aborted) onCallerAbort();
      else req.signal?.addEventListener('abort', onCallerAbort, { once: true });
      try {
        return await run(req, deadline.signal, timeoutMs);
      } catch (err) {
        if (timedOut) throw new EgressError('timeout', `timeout after ${timeoutMs} ms`);
        if (deadline.signal.aborted) throw new EgressError('timeout', 'aborted');
        if (err instanceof EgressError) throw err;
        throw networkError(err, timeoutMs);
      } finally {
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onCallerAbort);
      }
    },
    async close(): Promise<void> {
      closed = true;
      const open = [...clients];
      clients.clear();
      await Promise.all(open.map((c) => c.destroy().catch(() => {})));
    },
  };
}

/** Tears a response body down; undici then emits an AbortError on it, which is expected here. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function firstValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
