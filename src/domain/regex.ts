/**
 * Regular expressions users give us (conditions, verification's `pathPattern`, imported matchers),
 * with bounded work. re2js never backtracks, but when its DFA gives up it simulates the NFA, which
 * costs up to (compiled instructions × input characters); a 194-character pattern of counted
 * repetitions compiles to 32,000 instructions and held the thread for seconds on a 3 KB body.
 *
 * So (docs/limits.md, "Regular expressions"):
 * - a pattern has at most `MAX_PATTERN_CHARS` characters and compiles to at most
 *   `MAX_PROGRAM_SIZE` instructions (`{0,1000}` counts a thousand times): larger is a `RegexTooLarge`;
 * - a match reads at most the first `MAX_INPUT_CHARS` characters of its input, and at most
 *   `WORK_BUDGET / instructions` of them, so one match does a bounded amount of work (under
 *   100 ms of this engine's worst case, measured in bench/regex.mjs). Patterns of ordinary size
 *   (up to 22 instructions: `^/api/users/[0-9]+$` has 20) read the whole 64 KiB.
 */
import { RE2JS } from 're2js';

export const MAX_PATTERN_CHARS = 512;
export const MAX_PROGRAM_SIZE = 1000;
export const MAX_INPUT_CHARS = 64 * 1024;
/** instructions × characters one match may cost */
export const WORK_BUDGET = 1_500_000;

/** The pattern is valid but too large to match fast. */
export class RegexTooLarge extends Error {
  override readonly name = 'RegexTooLarge';
}

/** The pattern is not valid RE2 syntax. */
export class RegexInvalid extends Error {
  override readonly name = 'RegexInvalid';
}

export interface BoundedRegex {
  /** unanchored search, like RegExp#test, over the readable prefix of `s` */
  test(s: string): boolean;
  /** the whole readable prefix of `s` matches */
  matches(s: string): boolean;
  /** how many characters of an input a match reads */
  readonly readChars: number;
}

/** Compiles `pattern` within the bounds, or throws RegexTooLarge / RegexInvalid with a message for the API. */
export function compileBounded(pattern: string, wrapperChars = 0): BoundedRegex {
  if (pattern.length - wrapperChars > MAX_PATTERN_CHARS)
    throw new RegexTooLarge(`regular expression is longer than ${MAX_PATTERN_CHARS} characters`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    const detail = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
    if (/too large/.test(detail))
      throw new RegexTooLarge(
        `regular expression is too large to match fast (${MAX_PROGRAM_SIZE} instructions at most)`,
      );
    throw new RegexInvalid(`invalid regular expression: ${detail}`);
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM_SIZE)
    throw new RegexTooLarge(
      `regular expression is too large to match fast: it compiles to ${size} instructions, at most ${MAX_PROGRAM_SIZE} (counted repetitions such as {0,100} count each time)`,
    );
  const readChars = Math.min(MAX_INPUT_CHARS, Math.floor(WORK_BUDGET / Math.max(1, size)));
  const cut = (s: string) => (s.length > readChars ? s.slice(0, readChars) : s);
  return {
    readChars,
    test: (s) => re.test(cut(s)),
    matches: (s) => re.matches(cut(s)),
  };
}

/** `null` when `pattern` compiles within the bounds, else the reason. */
export function regexProblem(pattern: string): { message: string; tooLarge: boolean } | null {
  try {
    compileBounded(pattern);
    return null;
  } catch (e) {
    if (e instanceof RegexTooLarge) return { message: e.message, tooLarge: true };
    if (e instanceof RegexInvalid) return { message: e.message, tooLarge: false };
    throw e;
  }
}

/** Compiled patterns of template helpers (regexMatch, regexExtract), the most recent 200. */
const groupCache = new Map<string, { re: RE2JS; readChars: number } | null>();

/**
 * The first match of `pattern` in `input` with its groups (`[whole, group1, …]`), or null when it
 * does not match or the pattern is invalid or too large. Reads at most the bounded prefix of the input.
 */
export function regexGroups(pattern: string, input: string): (string | undefined)[] | null {
  let entry = groupCache.get(pattern);
  if (entry === undefined) {
    try {
      const bounded = compileBounded(pattern);
      entry = { re: RE2JS.compile(pattern), readChars: bounded.readChars };
    } catch {
      entry = null;
    }
    if (groupCache.size >= 200) groupCache.delete(groupCache.keys().next().value as string);
    groupCache.set(pattern, entry);
  }
  if (entry === null) return null;
  const m = entry.re.matcher(input.length > entry.readChars ? input.slice(0, entry.readChars) : input);
  if (!m.find()) return null;
  const out: (string | undefined)[] = [];
  for (let i = 0; i <= m.groupCount(); i++) out.push(m.group(i) ?? undefined);
  return out;
}
