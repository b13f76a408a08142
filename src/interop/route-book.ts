/**
 * Collects what an importer finds, per method and route: several stubs, routes or entries on one
 * method and path become one endpoint with rules in their order (docs/interop.md). Paths are turned
 * into Mockyard patterns here; at the end (`finish`) the last rule of an endpoint becomes its
 * default answer when it is a plain answer (no conditions, actions, headers, delay or sequence),
 * else the endpoint answers 404 like the tool it came from when nothing matches.
 */
import { type HttpMethod, METHODS } from '../domain/model.js';
import { routeKey, validatePattern } from '../domain/paths.js';
import type { Converted, DraftEndpoint, DraftRule } from './types.js';

const PARAM = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A request path (or a route with `:param` segments) → a Mockyard pattern: `:name` stays a parameter
 * (other characters become `_`), a last `*` stays the wildcard, any other segment is literal
 * (percent-encoded where it would read as a pattern). Empty segments are dropped.
 */
export function patternOf(path: string, opts: { params?: boolean } = {}): string {
  const params = opts.params ?? true;
  const bare = path.split(/[?#]/, 1)[0];
  const segs = bare.split('/').filter((s) => s !== '');
  const names = new Set<string>();
  const out = segs.map((seg, i) => {
    if (params && seg.startsWith(':') && seg.length > 1) {
      let name = seg.slice(1).replace(/[^A-Za-z0-9_]/g, '_');
      if (!PARAM.test(name)) name = `p_${name}`;
      while (names.has(name)) name = `${name}_`;
      names.add(name);
      return `:${name}`;
    }
    if (params && seg === '*' && i === segs.length - 1) return '*';
    let literal = seg;
    try {
      literal = decodeURIComponent(seg);
    } catch {
      // keep it as written
    }
    // `*` is a literal here (a recorded `/*` must not become a catch-all): the router reads `%2A` as one
    return encodeURIComponent(literal).replaceAll('*', '%2A');
  });
  return `/${out.join('/')}`;
}

export interface DefaultAnswer {
  statusCode: number;
  body: string;
  contentType: string;
}

/** What a tool answers when no stub matches (WireMock, Mockoon and Postman all answer 404). */
export const NO_MATCH: DefaultAnswer = {
  statusCode: 404,
  body: '{"error":{"code":"no_match","message":"No imported mock matched this request"}}',
  contentType: 'application/json',
};

export class RouteBook {
  private readonly byRoute = new Map<string, DraftEndpoint & { explicit: boolean }>();

  constructor(private readonly out: Converted) {}

  /**
   * The endpoint on `method` + `pattern` (made on first use), or null after recording why the route
   * cannot be an endpoint.
   */
  endpoint(method: string, pattern: string, pointer: string): DraftEndpoint | null {
    const m = method.toUpperCase();
    if (!(METHODS as readonly string[]).includes(m)) {
      this.out.skipped.push({ method: m, path: pattern, reason: `method ${m} cannot be mocked` });
      this.out.warnings.push({ pointer, message: `method ${m} cannot be mocked` });
      return null;
    }
    const why = validatePattern(pattern);
    if (why) {
      this.out.skipped.push({ method: m, path: pattern, reason: why });
      this.out.warnings.push({ pointer, message: `path ${pattern}: ${why}` });
      return null;
    }
    const key = `${m} ${routeKey(pattern)}`;
    let ep = this.byRoute.get(key);
    if (!ep) {
      ep = {
        method: m as HttpMethod,
        path: pattern,
        statusCode: NO_MATCH.statusCode,
        responseBody: NO_MATCH.body,
        contentType: NO_MATCH.contentType,
        rules: [],
        pointer,
        explicit: false,
      };
      this.byRoute.set(key, ep);
    }
    return ep;
  }

  /** Sets the endpoint's own answer (the rules stay in front of it). */
  setDefault(ep: DraftEndpoint, answer: DefaultAnswer): void {
    ep.statusCode = answer.statusCode;
    ep.responseBody = answer.body;
    ep.contentType = answer.contentType;
    (ep as DraftEndpoint & { explicit: boolean }).explicit = true;
  }

  addRule(ep: DraftEndpoint, rule: Omit<DraftRule, 'priority' | 'active'> & { priority?: number; active?: boolean }) {
    ep.rules.push({ priority: 0, active: true, ...rule, name: ruleName(rule.name) });
  }

  /** The endpoints, with a plain last rule folded into the default answer; into `out.endpoints`. */
  finish(): void {
    for (const ep of this.byRoute.values()) {
      const { explicit, ...draft } = ep;
      if (!explicit) foldLastRule(draft);
      this.out.endpoints.push(draft);
    }
  }
}

function ruleName(name: string): string {
  const n = name.trim() === '' ? 'imported' : name.trim();
  return n.length > 100 ? `${n.slice(0, 99)}…` : n;
}

function foldLastRule(ep: DraftEndpoint): void {
  // a WebSocket endpoint answers only through its rules: nothing folds into a default
  if (ep.method === 'WS') return;
  const last = ep.rules[ep.rules.length - 1];
  if (!last?.active || last.conditions.length > 0 || last.actions.length > 0 || !last.response) return;
  const steps = last.response.steps;
  if (steps.length !== 1) return;
  const s = steps[0];
  if (s.fault || s.delayMs > 0 || s.delayMaxMs > 0 || s.statusCode < 200) return;
  const names = Object.keys(s.headers);
  if (names.some((n) => n.toLowerCase() !== 'content-type')) return;
  ep.rules.pop();
  ep.statusCode = s.statusCode;
  ep.responseBody = s.body;
  const type = names.length === 1 ? s.headers[names[0]] : undefined;
  ep.contentType = type ?? 'application/json';
}
