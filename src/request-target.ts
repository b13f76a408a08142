/**
 * One spelling of a request target before anything looks at it (SECURITY.md, "One path for
 * every check"): the dispatcher, the management API's guards, the admin check and the mock router
 * all read the path this returns, so a check can never see another path than the router routes.
 *
 * - the absolute form (`http://host:port/path?q`) becomes its path, and its host is returned: it
 *   wins over the `Host` header (RFC 9112 §3.2.2);
 * - percent-encoded unreserved characters (letters, digits, `-._~`) are decoded: `%61pi` is `api`
 *   (RFC 3986 §6.2.2.2, the same resource); other escapes (`%2F`, `%20`) stay for the routers, which
 *   decode segments after splitting;
 * - `.` and `..` segments are removed and runs of `/` become one (RFC 3986 §5.2.4).
 *
 * The query string is kept as it came.
 */

export interface Target {
  /** the normalised path and the query as given (`/a/b?x=1`) */
  url: string;
  /** the host named by an absolute-form target, lower case, port kept; null otherwise */
  host: string | null;
}

const ABSOLUTE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)([^#]*)/;

/** True when `url` is already in the one spelling (the hot path's test: three scans, no allocation). */
export function isPlainTarget(url: string): boolean {
  return (
    url.charCodeAt(0) === 47 /* / */ && url.indexOf('%') === -1 && url.indexOf('/.') === -1 && url.indexOf('//') === -1
  );
}

/** The target in its one spelling, or null when it is none of origin form, absolute form or `*`. */
export function normaliseTarget(raw: string): Target | null {
  if (raw === '*') return { url: raw, host: null };
  let host: string | null = null;
  let rest = raw;
  if (raw.charCodeAt(0) !== 47) {
    const m = ABSOLUTE.exec(raw);
    if (!m) return null;
    const authority = m[1];
    const at = authority.lastIndexOf('@');
    host = (at === -1 ? authority : authority.slice(at + 1)).toLowerCase();
    rest = m[2] === '' ? '/' : m[2];
    if (rest.charCodeAt(0) === 63 /* ? */) rest = `/${rest}`;
  }
  const q = rest.indexOf('?');
  const path = q === -1 ? rest : rest.slice(0, q);
  const query = q === -1 ? '' : rest.slice(q);
  return { url: normalisePath(path) + query, host };
}

const HEX = /%([0-9A-Fa-f]{2})/g;

function decodeUnreserved(path: string): string {
  if (path.indexOf('%') === -1) return path;
  return path.replace(HEX, (whole, hex: string) => {
    const c = Number.parseInt(hex, 16);
    const unreserved =
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      (c >= 0x30 && c <= 0x39) ||
      c === 0x2d ||
      c === 0x2e ||
      c === 0x5f ||
      c === 0x7e;
    return unreserved ? String.fromCharCode(c) : whole.toUpperCase();
  });
}

/**
 * Unreserved escapes decoded, dot segments removed, empty segments dropped; a trailing `/` kept.
 * A mock path (`/m/<project>/…`) is its project's own root: `..` never climbs out of it, so a mock
 * request stays a mock request of the same project.
 */
export function normalisePath(path: string): string {
  const decoded = decodeUnreserved(path);
  const mock = /^\/+m\/+([^/]+)/.exec(decoded);
  if (mock && mock[1] !== '.' && mock[1] !== '..') {
    const rest = removeDots(decoded.slice(mock[0].length));
    return `/m/${mock[1]}${rest === '/' && !/\/$/.test(decoded) && decoded.length === mock[0].length ? '' : rest}`;
  }
  return removeDots(decoded);
}

function removeDots(decoded: string): string {
  const segs = decoded.split('/');
  const out: string[] = [];
  let trailing = false;
  for (let i = 1; i < segs.length; i++) {
    const s = segs[i];
    const last = i === segs.length - 1;
    if (s === '' || s === '.') {
      trailing = last;
      continue;
    }
    if (s === '..') {
      out.pop();
      trailing = last;
      continue;
    }
    out.push(s);
    trailing = false;
  }
  return `/${out.join('/')}${trailing && out.length > 0 ? '/' : ''}`;
}

/**
 * How many `Host` lines the request had, read from node's raw header list (node keeps the first
 * of several in `req.headers.host`, silently).
 */
export function hostLines(rawHeaders: string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host')) n++;
  }
  return n;
}
