/**
 * JSON as WireMock reads its mapping files: comments (`// …` to the end of the line, `/* … *\/`)
 * are allowed outside strings. Plain JSON is parsed as it is; the comments are taken out only when
 * that fails, so a valid document costs nothing more.
 */

/** `text` with its comments replaced by spaces (positions in error messages stay right). */
export function stripJsonComments(text: string): string {
  let out = '';
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      // skip the string, escapes included
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += text.slice(from, i) + ' '.repeat(stop - i);
      from = i = stop;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(from, i) + text.slice(i, stop).replace(/[^\n]/g, ' ');
      from = i = stop;
    } else i++;
  }
  return out + text.slice(from);
}

/** JSON.parse, then (when that fails on a document with comments) the same without them. */
export function parseJsonLenient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    if (!text.includes('/')) throw e;
    const stripped = stripJsonComments(text);
    if (stripped === text) throw e;
    try {
      return JSON.parse(stripped);
    } catch {
      throw e;
    }
  }
}
