/**
 * What the body editor says of a templated body (docs/templates.md): where a template does not parse
 * (the same parser as the server's, so the line and column agree), and whether the body is JSON once
 * its tags are filled in — tags inside a JSON string count as text, tags elsewhere as a value, and a
 * body with blocks (`{{#each}}`) is checked on its rendered preview instead.
 */
import { parseTemplateText, type TemplateProblem } from '../../../src/domain/template-syntax';

export type { TemplateProblem };

export function templateError(text: string): TemplateProblem | null {
  if (!text.includes('{{')) return null;
  const r = parseTemplateText(text);
  return r.ok ? null : r.problem;
}

/** The end (exclusive) of the tag opening at `at`, or -1: `}}` (`}}}` for `{{{`), past JSON-literal braces. */
function tagEnd(text: string, at: number): number {
  if (text.startsWith('{{{', at)) {
    const close = text.indexOf('}}}', at + 3);
    return close < 0 ? -1 : close + 3;
  }
  let depth = 0;
  let quote = '';
  for (let i = at + 2; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0 && text[i + 1] === '}') return i + 2;
      depth = Math.max(0, depth - 1);
    }
  }
  return -1;
}

/** `{ok, plain}`: plain when no tag was needed; `blocks` when the body has block tags (checked on the preview). */
export function checkTemplateJson(
  text: string,
): { ok: true; plain: boolean; blocks?: boolean } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, plain: true };
  let first: unknown;
  try {
    JSON.parse(text);
    return { ok: true, plain: true };
  } catch (err) {
    first = err;
  }
  if (!text.includes('{{')) return { ok: false, message: first instanceof Error ? first.message : 'Not valid JSON' };
  let out = '';
  let inString = false;
  let blocks = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' && text[i + 1] === '{') {
      const end = tagEnd(text, i);
      if (end > 0) {
        const inner = text.slice(i + 2, end - 2).replace(/^[{~\s]+/, '');
        if (/^[#/^!]|^else\b/.test(inner)) blocks = true;
        else out += inString ? 'x' : '0';
        i = end - 1;
        continue;
      }
    }
    if (inString && c === '\\') {
      out += c + (text[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '"') inString = !inString;
    out += c;
  }
  if (blocks) return { ok: true, plain: false, blocks: true };
  try {
    JSON.parse(out);
    return { ok: true, plain: false };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : 'Not valid JSON' };
  }
}
