/** The outbound client's shapes, its error type, and the loop guard header (egress.ts). */

/**
 * Loop guard. An `http_request` action sends `x-mockyard-hop: <n + 1>`, where n is the integer value
 * of this header on the incoming mock request (0 when absent or not a number). The caller sets it in
 * `EgressRequest.headers` AFTER the user's headers, so a rule cannot lower it; the mock runtime can then
 * refuse to run actions for a request whose hop count is past its limit (a mock calling itself).
 * Egress forwards it like any other header.
 */
export const HOP_HEADER = 'x-mockyard-hop';

/**
 * The loop guard's count as received (SECURITY.md): a non-negative decimal integer; anything else
 * (negative, fractional, `-Infinity`, several values, too long) counts as 0, so no spelling lets a
 * request start below zero.
 */
export function parseHops(value: string | string[] | undefined): number {
  if (typeof value !== 'string' || value.length === 0 || value.length > 6) return 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return 0;
  }
  return Number(value);
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;

export interface EgressOptions {
  /** 'host:port' entries (lower-case host; IPv6 in brackets, e.g. '[::1]:8080') that may be reached although private */
  allowTargets: readonly string[];
  /** cap on the response body kept (default 1 MiB); a larger answer is an error (`too_large`) */
  maxBodyBytes?: number;
  /** cap on redirects followed, each hop checked like the first (default 5) */
  maxRedirects?: number;
  /** injectable DNS lookup for tests: (hostname) => Promise<{address: string; family: 4|6}[]> */
  lookup?: (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;
}

export interface EgressRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
  /** false: a redirect is the answer, not followed (the fallback proxy hands it to its client) */
  followRedirects?: boolean;
}

export interface EgressResponse {
  status: number;
  /** lower-case names; repeated headers joined with ', ' */
  headers: Record<string, string>;
  body: string;
  /** the body as received (no decoding: a content-encoding is still applied) */
  bytes?: Buffer;
  /** [bytes received so far, ms after the head] as each piece of the body arrived (at most 10,000) */
  arrivals?: [number, number][];
  contentType: string;
  /** the URL that gave this answer (after redirects), without fragment */
  url: string;
}

export type EgressErrorKind = 'invalid_url' | 'blocked' | 'timeout' | 'network' | 'too_large';

export class EgressError extends Error {
  readonly kind: EgressErrorKind;
  constructor(kind: EgressErrorKind, message: string) {
    super(message);
    this.name = 'EgressError';
    this.kind = kind;
  }
}

export interface Egress {
  request(req: EgressRequest): Promise<EgressResponse>;
  /** Destroys in-flight connections; later requests fail with 'egress closed'. */
  close(): Promise<void>;
}
