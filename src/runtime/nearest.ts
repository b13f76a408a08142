/**
 * The endpoints nearest to a request no endpoint matched (docs/api.md "Mock traffic"): the same path
 * with another method, a path that differs in a segment, one with a segment more or less (a missing
 * or extra prefix) — at most three, each with a sentence saying what differs. Computed only for a
 * miss, over at most `SCAN` routes.
 */
import type { RouteEntry } from './router.js';

export interface NearEndpoint {
  method: string;
  path: string;
  /** segments to change (a different method adds none) */
  distance: number;
  why: string;
}

const SCAN = 5000;
const MAX_DISTANCE = 2;

const fits = (pattern: string, seg: string) => (pattern.startsWith(':') ? seg !== '' : pattern === seg);

/** Two words one typo apart: a letter added, dropped or changed, case aside (`user` and `users`). */
function typo(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return true;
  if (Math.min(x.length, y.length) < 3 || Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  const tail = (n: number, m: number) => x.slice(n) === y.slice(m);
  return tail(i + 1, i + 1) || tail(i + 1, i) || tail(i, i + 1);
}

/** Segment edit distance (a `:param` takes any one segment, a final `*` the rest). */
function distance(req: readonly string[], pat: readonly string[]): number {
  const wild = pat.length > 0 && pat[pat.length - 1] === '*';
  const p = wild ? pat.slice(0, -1) : pat;
  const r = wild && req.length > p.length ? req.slice(0, p.length + 1) : req;
  const rows = r.length + 1;
  const cols = p.length + (wild ? 1 : 0) + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++)
    for (let j = 1; j < cols; j++) {
      const seg = j - 1 < p.length ? p[j - 1] : '*';
      const same = seg === '*' ? r[i - 1] !== '' : fits(seg, r[i - 1]);
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same ? 0 : 1));
    }
  return d[rows - 1][cols - 1];
}

/** What differs, in words. */
function why(method: string, req: readonly string[], route: RouteEntry, dist: number): string {
  const path = `/${route.segs.join('/')}`;
  if (dist === 0) return `the path matches ${path}, but the endpoint answers ${route.method}, not ${method}`;
  const methodNote = route.method === method ? '' : `; it answers ${route.method}, not ${method}`;
  if (req.length === route.segs.length) {
    const at = route.segs.findIndex((s, i) => !fits(s, req[i]) && s !== '*');
    if (at !== -1 && dist === 1)
      return `segment ${at + 1} is "${req[at]}" where the endpoint has "${route.segs[at]}"${methodNote}`;
    return `${dist} segments differ from ${path}${methodNote}`;
  }
  if (req.length > route.segs.length) {
    const extra = req.length - route.segs.length;
    if (route.segs.every((s, i) => fits(s, req[i + extra])))
      return `the request has "/${req.slice(0, extra).join('/')}" before the endpoint's path ${path}${methodNote}`;
    return `the request has ${extra} segment${extra > 1 ? 's' : ''} more than ${path}${methodNote}`;
  }
  const missing = route.segs.length - req.length;
  if (req.every((s, i) => fits(route.segs[i + missing], s)))
    return `the endpoint's path starts with "/${route.segs.slice(0, missing).join('/')}", which the request lacks${methodNote}`;
  return `the request has ${missing} segment${missing > 1 ? 's' : ''} fewer than ${path}${methodNote}`;
}

/** At most three endpoints close to `method path`, nearest first. */
export function nearestEndpoints(routes: Iterable<RouteEntry>, method: string, path: string): NearEndpoint[] {
  const req = path.split('/').filter((s) => s !== '');
  const found: { route: RouteEntry; score: number; dist: number }[] = [];
  let seen = 0;
  for (const route of routes) {
    if (++seen > SCAN) break;
    // a near miss shares something concrete: one of the pattern's literal segments, or a word one
    // typo from it (a catch-all or an all-parameter pattern is near everything, so it says nothing)
    const literals = route.segs.filter((x) => x !== '*' && !x.startsWith(':'));
    if (literals.length === 0 || !literals.some((x) => req.some((seg) => typo(x, seg)))) continue;
    const dist = distance(req, route.segs);
    if (dist > MAX_DISTANCE) continue;
    if (dist === 0 && route.method === method) continue; // it would have matched
    found.push({ route, dist, score: dist + (route.method === method ? 0 : 0.5) });
  }
  found.sort((a, b) => a.score - b.score);
  return found.slice(0, 3).map(({ route, dist }) => ({
    method: route.method,
    path: `/${route.segs.join('/')}`,
    distance: dist,
    why: why(method, req, route, dist),
  }));
}
