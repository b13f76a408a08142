/**
 * The request inspector's reasoning, without a browser (inspect.test.ts): what each rule of the
 * endpoint did with a logged request — matched, failed at condition N (expected vs the value the
 * request had), skipped as inactive, or not reached —, the request as a curl command and as a
 * replay, and the list's filters as they stand in the page's URL.
 */
import type { Condition, LogEntry, Rule } from '../types';

/** What a condition read from the logged request, when the log holds it (state and variables it does not). */
export function receivedValue(c: Condition, e: LogEntry): { known: boolean; value?: string } {
  switch (c.target) {
    case 'method':
      return { known: true, value: e.method };
    case 'path':
      return { known: true, value: e.path };
    case 'header': {
      const v = e.headers[(c.key ?? '').toLowerCase()];
      return { known: true, value: v };
    }
    case 'query': {
      const v = new URLSearchParams(e.query ?? '').get(c.key ?? '');
      return { known: true, value: v ?? undefined };
    }
    case 'body':
      return { known: true, value: e.body };
    case 'body_json': {
      let v: unknown;
      try {
        v = JSON.parse(e.body);
      } catch {
        return { known: true, value: undefined };
      }
      for (const part of (c.key ?? '').split('.')) {
        if (v === null || typeof v !== 'object') return { known: true, value: undefined };
        v = (v as Record<string, unknown>)[part];
      }
      if (v === undefined) return { known: true, value: undefined };
      return { known: true, value: typeof v === 'string' ? v : JSON.stringify(v) };
    }
    default:
      return { known: false };
  }
}

export type RuleStatus =
  | { rule: Rule; status: 'matched' }
  | { rule: Rule; status: 'failed'; index: number; condition?: Condition; received: { known: boolean; value?: string } }
  | { rule: Rule; status: 'failed'; index?: undefined; reason?: string }
  | { rule: Rule; status: 'inactive' }
  | { rule: Rule; status: 'not_reached' };

/** Every rule of the endpoint in evaluation order, with what it did for this request. */
export function ruleStatuses(e: LogEntry, rules: Rule[]): RuleStatus[] {
  const traces = new Map((e.rules ?? []).map((t) => [t.ruleId, t]));
  const ordered = rules
    .filter((r) => r.endpointId === e.endpointId)
    .sort((a, b) => a.priority - b.priority || (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  return ordered.map((rule): RuleStatus => {
    const t = traces.get(rule.id);
    if (t?.matched) return { rule, status: 'matched' };
    if (t && t.failedCondition !== undefined) {
      const condition = rule.conditions[t.failedCondition];
      return {
        rule,
        status: 'failed',
        index: t.failedCondition,
        condition,
        received: condition ? receivedValue(condition, e) : { known: false },
      };
    }
    if (t) return { rule, status: 'failed', reason: t.reason };
    if (!rule.active) return { rule, status: 'inactive' };
    // active, not in the trace: an earlier rule answered first (or the rule is newer than the request)
    return { rule, status: 'not_reached' };
  });
}

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
}
const KEYS = ['method', 'status', 'path', 'rule', 'session'] as const;

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
  return true;
}
