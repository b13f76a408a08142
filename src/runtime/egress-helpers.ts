/**
 * The outbound client's pieces (egress.ts): DNS lookup, the allow-list's normal form, URL and
 * header checks, the connector pinned to the checked address, and error classification.
 */
import dns from 'node:dns';
import net from 'node:net';
import type { buildConnector } from 'undici';
import { EgressError, type EgressOptions } from './egress-types.js';

export type Lookup = NonNullable<EgressOptions['lookup']>;

export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const BAD_VALUE = /[\r\n\0]/;
/** Hop-by-hop or framing headers a rule must not set: undici computes them, or they break framing. */
export const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'content-length',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);
export const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
export const REDIRECTS = new Set([301, 302, 303, 307, 308]);
export const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location'];
export const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** Connect errors after which the next checked address of the same name is tried. */
export const RETRY_NEXT_ADDRESS = new Set([
  'ECONNREFUSED',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'EAFNOSUPPORT',
]);

export const defaultLookup: Lookup = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** `host` (URL hostname, IPv6 bracketed) + port, trailing dots of names dropped. */
export function hostKey(hostname: string, port: number): string {
  return `${hostname.replace(/\.+$/, '')}:${port}`;
}

/** `ip:port` in the URL parser's canonical form (IPv6 bracketed and compressed). */
export function ipKey(ip: string, port: number): string {
  return hostKey(new URL(`http://${net.isIPv6(ip) ? `[${ip}]` : ip}/`).hostname, port);
}

/** `MOCKYARD_ALLOW_TARGETS` entries as the keys the egress compares (`hostKey`/`ipKey`). */
export function allowSet(targets: readonly string[]): Set<string> {
  return new Set(
    targets
      .map((t) => t.trim())
      .filter((t) => t !== '')
      .map(normalizeAllowTarget),
  );
}

export function normalizeAllowTarget(entry: string): string {
  const invalid = () => new TypeError(`invalid allow target '${entry}': expected host:port`);
  const m = /^(.+):(\d{1,5})$/.exec(entry.trim().toLowerCase());
  if (!m) throw invalid();
  const port = Number(m[2]);
  if (port < 1 || port > 65535) throw invalid();
  let url: URL;
  try {
    url = new URL(`http://${m[1]}/`);
  } catch {
    throw invalid();
  }
  if (url.username || url.password || url.port || url.pathname !== '/' || url.search || url.hash) throw invalid();
  return hostKey(url.hostname, port);
}

export function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

export function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new EgressError('invalid_url', 'invalid url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressError('blocked', 'blocked: scheme not allowed');
  }
  if (url.hostname === '' || url.hostname === '.') throw new EgressError('invalid_url', 'invalid url');
  return url;
}

export function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

export function sanitizeHeaders(input: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, rawValue] of Object.entries(input ?? {})) {
    const value = String(rawValue);
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new EgressError('blocked', 'blocked: invalid header');
    const lower = name.toLowerCase();
    if (DROPPED_HEADERS.has(lower)) continue;
    out[lower] = value;
  }
  return out;
}

/** Rejects with the signal's reason as soon as it aborts (dns.lookup itself cannot be cancelled). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

export type Undici = typeof import('undici');
let undiciModule: Promise<Undici> | null = null;
/** undici, loaded with the first outbound request (a server that never calls out does not hold it in memory). */
export const loadUndici = (): Promise<Undici> => {
  undiciModule ??= import('undici');
  return undiciModule;
};

/** A connector that dials the checked addresses in order (next one on refusal), never a name. */
export function pinnedConnector(
  undici: Undici,
  addresses: readonly string[],
  timeoutMs: number,
): buildConnector.connector {
  const base = undici.buildConnector({ timeout: timeoutMs, allowH2: false, maxCachedSessions: 0 });
  return (opts, callback) => {
    const attempt = (i: number) => {
      base({ ...opts, hostname: addresses[i] }, (err, socket) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code ?? '';
          if (i + 1 < addresses.length && RETRY_NEXT_ADDRESS.has(code)) attempt(i + 1);
          else callback(err, null);
          return;
        }
        callback(null, socket!);
      });
    };
    attempt(0);
  };
}

export function errorCode(err: unknown): string {
  let cur: unknown = err;
  for (let depth = 0; depth < 4 && cur && typeof cur === 'object'; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return '';
}

export function networkError(err: unknown, timeoutMs: number): EgressError {
  const code = errorCode(err);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return new EgressError('timeout', `timeout after ${timeoutMs} ms`);
    case 'ECONNREFUSED':
      return new EgressError('network', 'connection refused');
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return new EgressError('network', 'connection reset');
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
    case 'EADDRNOTAVAIL':
    case 'EAFNOSUPPORT':
      return new EgressError('network', 'network unreachable');
  }
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_OSSL)/.test(code)) {
    return new EgressError('network', 'tls error');
  }
  return new EgressError('network', 'network error');
}

export function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
