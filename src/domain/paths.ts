/**
 * Endpoint paths as patterns (docs/api.md "Endpoints"): how a pattern splits into segments, which
 * patterns are valid, and the key under which two patterns the router cannot tell apart collide.
 * The router (src/runtime/router.ts) matches requests with the same splitting and decoding.
 */

/** A segment percent-decoded; the raw segment when the escape is malformed. */
export function decodeSegment(seg: string): string {
  if (!seg.includes('%')) return seg;
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

/** Pattern or request path → segments: no leading `/`, one trailing `/` ignored, `/` → []. */
export function splitPath(path: string): string[] {
  let end = path.length;
  if (end > 1 && path.charCodeAt(end - 1) === 47 /* / */) end--;
  const start = path.charCodeAt(0) === 47 ? 1 : 0;
  if (start >= end) return [];
  return path.slice(start, end).split('/');
}

/** The pattern with a trailing `/` removed (root `/` stays), to detect duplicate method + path. */
export function normalizePattern(pattern: string): string {
  return pattern.length > 1 && pattern.endsWith('/') ? pattern.slice(0, -1) : pattern;
}

/**
 * A key equal for every two patterns the router cannot tell apart: normalized, literals decoded, param names
 * dropped (`/a/:x` and `/a/:y/` give the same key). Stricter than normalizePattern for conflict detection.
 */
export function routeKey(pattern: string): string {
  const segs = splitPath(pattern).map((s) =>
    s.startsWith(':') ? ':' : s === '*' ? '*' : encodeURIComponent(decodeSegment(s)).replaceAll('*', '%2A'),
  );
  return '/' + segs.join('/');
}

const PARAM_NAME_RE = /^[A-Za-z0-9_]+$/;

/** `null` when the pattern is valid, else a message for the API's validation details. */
export function validatePattern(pattern: string): string | null {
  if (typeof pattern !== 'string' || !pattern.startsWith('/')) return 'path must start with /';
  if (pattern.includes('?') || pattern.includes('#')) return 'path must not contain a query string (?) or fragment (#)';
  const segs = splitPath(pattern);
  const names = new Set<string>();
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    if (seg === '') return 'path must not contain empty segments (//)';
    if (seg.includes('*')) {
      if (seg !== '*') return '* must be a whole segment';
      if (i !== segs.length - 1) return '* is only allowed as the last segment';
    } else if (seg.startsWith(':')) {
      const name = seg.slice(1);
      if (!PARAM_NAME_RE.test(name)) return `parameter ${seg} needs a name of letters, digits and _`;
      if (names.has(name)) return `parameter :${name} appears twice`;
      names.add(name);
    }
  }
  return null;
}
