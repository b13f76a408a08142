/**
 * Whether `a` and `b` hold the same characters, compared one by one. For a request's fresh string
 * (a slice of the URL) against a long-lived one this stays in optimized code: `===` on a sliced
 * string, like a Map lookup (which hashes the whole string first), is a call into the runtime —
 * ~0.1-0.2 µs of a mock request's project and route lookups (perf, bench S1).
 * Strings past `max` characters are not compared (false): the caller takes its usual path.
 */
export function sameText(a: string, b: string, max = 256): boolean {
  const n = a.length;
  if (n !== b.length || n > max) return false;
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}
