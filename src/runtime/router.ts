/**
 * Method + path → endpoint (docs/api.md). One trie of Maps per method; a lookup walks the request's
 * segments, so its cost grows with the path, not with the number of endpoints.
 *
 * Patterns: literal segments, `:name` (exactly one non-empty segment) and a final `*` (the rest of the path,
 * ONE OR MORE segments: `/files/*` matches `/files/a` and `/files/a/b`, but not `/files` or `/files/`; add a
 * `/files` endpoint for the bare collection). At each segment a literal beats `:name`, which beats `*`; when
 * the preferred branch leads nowhere the next is tried (`/a/:x/c` answers `/a/b/c` beside `/a/b/d`).
 *
 * A trailing `/` is ignored on patterns and requests (root `/` stays `/`). Request segments are
 * percent-decoded (`decodeURIComponent`, the raw segment when the escape is malformed) before matching, and
 * so are literal segments of patterns, so `/caf%C3%A9` and `/café` name the same route.
 * Params hold the decoded `:name` segments, and under the key `*` the decoded rest joined with `/`.
 */
import { decodeSegment, normalizePattern, splitPath } from '../domain/paths.js';
import { sameText } from '../shared/same-text.js';

export { normalizePattern, routeKey, validatePattern } from '../domain/paths.js';

/**
 * Where a pattern ends. A pattern without params or `*` is answered with its terminal itself (a frozen
 * object that is also its RouteMatch: its params are empty and frozen); a project may hold 10,000
 * routes, so a terminal carries nothing more than the lookup needs.
 */
interface Terminal<T> extends RouteMatch<T> {
  readonly value: T;
  /** names of the pattern's `:params`, in order */
  readonly names: readonly string[];
  /** true when the match is the terminal itself */
  readonly exact: boolean;
  /** an exact route's pattern, trailing `/` removed ('' for others): a request path that equals it
   * is routed here (the last-hit check in `match`) */
  readonly path: string;
}

const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null));
const NO_NAMES: readonly string[] = Object.freeze([]);
const makeTerminal = <T>(value: T, names: string[], wildcard: boolean, pattern: string): Terminal<T> => {
  const exact = names.length === 0 && !wildcard;
  return Object.freeze({
    value,
    params: NO_PARAMS,
    // an exact-size copy: `names` was grown by push, which leaves room for 16 more
    names: names.length === 0 ? NO_NAMES : names.slice(),
    exact,
    path: exact ? normalizePattern(pattern) : '',
  });
};

/**
 * A trie node. Its literal children: none, one (`oneKey` → `one`, most nodes of a REST project have a
 * single literal child), or a Map once there are two or more (a Map costs about 250 bytes even with
 * one entry).
 */
interface Node<T> {
  oneKey: string | null;
  one: Node<T> | null;
  literals: Map<string, Node<T>> | null;
  param: Node<T> | null;
  /** a final `*` below this node */
  wildcard: Terminal<T> | null;
  /** a pattern ending at this node */
  terminal: Terminal<T> | null;
}

const newNode = <T>(): Node<T> => ({
  oneKey: null,
  one: null,
  literals: null,
  param: null,
  wildcard: null,
  terminal: null,
});

function literalChild<T>(node: Node<T>, seg: string): Node<T> | undefined {
  if (node.one !== null) return node.oneKey === seg ? node.one : undefined;
  return node.literals?.get(seg);
}

function addLiteral<T>(node: Node<T>, seg: string, child: Node<T>): void {
  if (node.one === null && node.literals === null) {
    node.oneKey = seg;
    node.one = child;
    return;
  }
  if (node.one !== null) {
    node.literals = new Map([[node.oneKey as string, node.one]]);
    node.oneKey = null;
    node.one = null;
  }
  node.literals?.set(seg, child);
}

export interface RouteMatch<T> {
  value: T;
  /** null-prototype */
  params: Record<string, string>;
}

/** A route as added, for listing: its method and pattern segments (`:name`, a final `*`). */
export interface RouteEntry {
  readonly method: string;
  readonly segs: readonly string[];
}

const PARAM = '\u0000param';

function* walk<T>(node: Node<T>, segs: string[], method: string): Generator<RouteEntry> {
  const named = (list: string[], names: readonly string[]) => {
    let k = 0;
    return list.map((s) => (s === PARAM ? `:${names[k++] ?? 'param'}` : s));
  };
  if (node.terminal) yield { method, segs: named(segs, node.terminal.names) };
  if (node.wildcard) yield { method, segs: named([...segs, '*'], node.wildcard.names) };
  if (node.one !== null && node.oneKey !== null) yield* walk(node.one, [...segs, node.oneKey], method);
  if (node.literals) for (const [k, c] of node.literals) yield* walk(c, [...segs, k], method);
  if (node.param) yield* walk(node.param, [...segs, PARAM], method);
}

export class Router<T> {
  /** Every route, method by method (for the near misses of a request that matched none). */
  *routes(): Generator<RouteEntry> {
    for (const [method, root] of this.roots) yield* walk(root, [], method);
  }

  private readonly roots = new Map<string, Node<T>>();
  /**
   * Per method, the routes of patterns without params, `*` or `%` by their path (trailing `/` removed):
   * a request path without `%` is looked up here first, without splitting it. A literal route wins
   * over every param or `*` route in the trie (literal before `:param` before `*` at each segment), so
   * a hit here is the trie's answer too.
   */
  private readonly exact = new Map<string, Map<string, Terminal<T>>>();
  /**
   * The last exact route a lookup found, and its method: a mock's traffic mostly repeats one path,
   * and comparing it with the route's own path character by character skips hashing the request's
   * fresh path string (see sameText). Only the router's own objects are kept here (a request's
   * method is one of node's constants), never a request's string.
   */
  private lastMethod = '';
  private lastHit: Terminal<T> | null = null;
  /**
   * While routes are added: one string per distinct literal segment (`items` of 5,000 resources is one
   * string, not 5,000). Dropped by `built()`.
   */
  private segments = new Map<string, string>();

  /**
   * Registers a pattern (validate it first with validatePattern). The method is upper-cased. When two
   * patterns occupy the same route (same method and normalized path, or paths differing only in param
   * names) the first one added is kept.
   */
  add(method: string, pattern: string, value: T): void {
    const key = method.toUpperCase();
    let root = this.roots.get(key);
    if (root === undefined) {
      root = newNode<T>();
      this.roots.set(key, root);
    }
    let node = root;
    const segs = splitPath(pattern);
    const names: string[] = [];
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i];
      if (seg === '*' && i === segs.length - 1) {
        node.wildcard ??= makeTerminal(value, names, true, pattern);
        return;
      }
      if (seg.startsWith(':')) {
        names.push(seg.slice(1));
        node.param ??= newNode<T>();
        node = node.param;
        continue;
      }
      const literal = decodeSegment(seg);
      let next: Node<T> | undefined = literalChild(node, literal);
      if (next === undefined) {
        next = newNode<T>();
        let shared = this.segments.get(literal);
        if (shared === undefined) {
          shared = literal;
          this.segments.set(literal, literal);
        }
        addLiteral(node, shared, next);
      }
      node = next;
    }
    node.terminal ??= makeTerminal(value, names, false, pattern);
    // the match of the route the trie kept (the first of equal paths); a pattern with `%` is left out:
    // its decoded path is only asked for with an escape, which the trie answers
    if (node.terminal.exact && !pattern.includes('%')) {
      let paths = this.exact.get(key);
      if (paths === undefined) {
        paths = new Map();
        this.exact.set(key, paths);
      }
      paths.set(normalizePattern(pattern), node.terminal);
    }
  }

  /** Every route is added: drops what only adding needs (a later `add` still works). */
  built(): this {
    this.segments = new Map();
    return this;
  }

  /** The route for a request path (without query string), or null. */
  match(method: string, path: string): RouteMatch<T> | null {
    const last = this.lastHit;
    if (last !== null && method === this.lastMethod && sameText(path, last.path)) return last;
    if (!path.includes('%')) {
      const paths = this.exact.get(method);
      const hit = paths?.get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);
      if (hit !== undefined) {
        this.lastMethod = method;
        this.lastHit = hit;
        return hit;
      }
    }
    const root = this.roots.get(method) ?? this.roots.get(method.toUpperCase());
    if (root === undefined) return null;
    const segs = splitPath(path);
    for (let i = 0; i < segs.length; i++) segs[i] = decodeSegment(segs[i]);
    const captures: string[] = [];
    const found = search(root, segs, 0, captures);
    if (found === null) return null;
    if (found.rest === -1 && found.terminal.exact) return found.terminal;
    const params: Record<string, string> = Object.create(null);
    const { terminal, rest } = found;
    for (let i = 0; i < terminal.names.length; i++) params[terminal.names[i]] = captures[i];
    if (rest >= 0) params['*'] = segs.slice(rest).join('/');
    return { value: terminal.value, params };
  }
}

/**
 * Depth-first search, literal before `:param` before `*`. Every trie node lies at one depth and is reached by
 * one route, so a lookup visits each node at most once: bounded by the path length times the branching the
 * user's own patterns create (literal and param at the same position), never by the number of endpoints.
 * `captures` holds the `:param` segments on the current route; `rest` is where a `*` began (-1: none).
 */
function search<T>(
  node: Node<T>,
  segs: readonly string[],
  i: number,
  captures: string[],
): { terminal: Terminal<T>; rest: number } | null {
  if (i === segs.length) return node.terminal === null ? null : { terminal: node.terminal, rest: -1 };
  const seg = segs[i];
  const lit = literalChild(node, seg);
  if (lit !== undefined) {
    const found = search(lit, segs, i + 1, captures);
    if (found !== null) return found;
  }
  if (node.param !== null && seg !== '') {
    captures.push(seg);
    const found = search(node.param, segs, i + 1, captures);
    if (found !== null) return found;
    captures.pop();
  }
  if (node.wildcard !== null) return { terminal: node.wildcard, rest: i };
  return null;
}
