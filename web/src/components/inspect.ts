/**
 * The request inspector's reasoning, without a browser (inspect.test.ts): what each rule of the
 * endpoint did with a logged request — matched, failed at condition N (expected vs the value the
 * request had), skipped as inactive, or not reached — from src/domain/explain.ts, which the MCP
 * server's explain_request shares —, the request as a curl command and as a replay, and the list's filters as they stand in the page's URL.
 */
import type { LogEntry } from '../types';

export { type RuleStatus, receivedValue, ruleStatuses } from '../../../src/domain/explain';

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
/** Headers a replay or a copied command leaves out: the client sets them, or they name this hop. */
const NOT_REPLAYED = new Set([
  'host',
  'content-length',
  'connection',
  'accept-encoding',
  'keep-alive',
  'transfer-encoding',
  'x-mockyard-hop',
  'origin',
  'referer',
  'cookie',
]);
const replayed = (e: LogEntry) =>
  Object.entries(e.headers).filter(([k]) => !NOT_REPLAYED.has(k.toLowerCase()) && !k.toLowerCase().startsWith('sec-'));

/** The mock URL the request was made to: `base` (the project's mock base) + path + query. */
export const requestUrl = (e: LogEntry, base: string) => `${base}${e.path}${e.query ? `?${e.query}` : ''}`;

/** The request as a curl command. */
export function curlOf(e: LogEntry, base: string): string {
  const parts = ['curl', '-X', e.method, shellQuote(requestUrl(e, base))];
  for (const [k, v] of replayed(e)) parts.push('-H', shellQuote(`${k}: ${v}`));
  if (e.body !== '') parts.push('--data-binary', shellQuote(e.body));
  return parts.join(' ');
}

/** `fetch` arguments that send the request again. */
export function replayInit(e: LogEntry): RequestInit {
  const headers = new Headers();
  for (const [k, v] of replayed(e)) {
    try {
      headers.set(k, v);
    } catch {
      // a header the browser may not set
    }
  }
  const bodyless = e.method === 'GET' || e.method === 'HEAD';
  return { method: e.method, headers, body: bodyless || e.body === '' ? undefined : e.body };
}

// ------------------------------------------------------------------------------------------------
// filters, as they stand in the URL (?method=GET&status=4xx&path=orders&rule=…&session=…)

export interface RequestFilters {
  method?: string;
  /** a status class: 2xx, 3xx, 4xx, 5xx */
  status?: string;
  /** text the path contains */
  path?: string;
  /** the id of the rule that answered, or "none" for answers no rule gave */
  rule?: string;
  /** a session, or "none" for requests without one */
  session?: string;
  /** "yes": only requests whose request or answer broke the project's contract */
  violations?: string;
  /** one endpoint's requests (the endpoint page's "Live requests" link) */
  endpoint?: string;
}
const KEYS = ['method', 'status', 'path', 'rule', 'session', 'violations', 'endpoint'] as const;

export function parseFilters(search: string): RequestFilters {
  const q = new URLSearchParams(search);
  const f: RequestFilters = {};
  for (const k of KEYS) {
    const v = q.get(k);
    if (v) f[k] = v;
  }
  return f;
}

export function filtersToSearch(f: RequestFilters): string {
  const q = new URLSearchParams();
  for (const k of KEYS) if (f[k]) q.set(k, f[k] as string);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function passesFilters(f: RequestFilters, e: LogEntry): boolean {
  if (f.method && e.method !== f.method) return false;
  if (f.status && `${String(e.statusCode)[0]}xx` !== f.status) return false;
  if (f.path && !`${e.path}${e.query ? `?${e.query}` : ''}`.toLowerCase().includes(f.path.toLowerCase())) return false;
  if (f.rule && (f.rule === 'none' ? e.ruleId !== null : e.ruleId !== f.rule)) return false;
  if (f.session && (f.session === 'none' ? !!e.session : e.session !== f.session)) return false;
  if (f.violations === 'yes' && violationCount(e) === 0) return false;
  if (f.endpoint && e.endpointId !== f.endpoint) return false;
  return true;
}

/** How many contract violations a request and its answer had (docs/contract.md). */
export function violationCount(e: LogEntry): number {
  return e.violations ? e.violations.request.length + e.violations.response.length : 0;
}
