/**
 * Mockoon's data buckets read from templates (`{{data 'users' 'path'}}`, `(dataRaw 'users')`) and
 * rules (`data_bucket` target). A bucket is JSON, or a template Mockoon renders once when it starts:
 * the importer does the same, so a bucket's value is fixed at import and its reads are written
 * into the templates as literals (docs/interop.md). `setData` writes are not translated.
 */
import { compileTemplate } from '../runtime/template.js';
import { exampleContext } from '../runtime/templates/example-context.js';
import { jsonPathToDots, translateTemplate, verbatim } from './templates.js';
import { type ImportWarning, isObject, type Json } from './types.js';

export class Buckets {
  private readonly values = new Map<Json, { ok: boolean; value: unknown }>();

  constructor(
    private readonly list: Json[],
    private readonly warnings: ImportWarning[],
  ) {}

  /** As Mockoon finds a bucket: by id, else the first whose name contains the text (any case). */
  get(idOrName: string): Json | undefined {
    const lower = idOrName.toLowerCase();
    return (
      this.list.find((b) => b.id === idOrName) ??
      this.list.find((b) => typeof b.name === 'string' && b.name.toLowerCase().includes(lower))
    );
  }

  /** The bucket's value: its JSON, or its template rendered once (as Mockoon does at start). */
  value(b: Json, pointer: string): { ok: boolean; value: unknown } {
    let v = this.values.get(b);
    if (v === undefined) {
      const text = typeof b.value === 'string' ? b.value : '';
      v = parsed(text);
      if (!v.ok && text.includes('{{')) {
        try {
          const src = translateTemplate(text, { dialect: 'mockoon', pointer, warnings: this.warnings });
          v = parsed(compileTemplate(src)(exampleContext()));
        } catch {
          v = { ok: false, value: undefined };
        }
      }
      if (!v.ok) v = { ok: true, value: text };
      this.values.set(b, v);
    }
    return v;
  }

  /** The value at `path` (Mockoon's dot path or a `$` JSON path) of a bucket; '' when the path names nothing. */
  read(idOrName: string, path: string, pointer: string): { found: boolean; value?: unknown } {
    const b = this.get(idOrName);
    if (!b) return { found: false };
    const { value } = this.value(b, pointer);
    if (path === '') return { found: true, value };
    const dots = path.startsWith('$') ? jsonPathToDots(path) : path;
    if (dots === null) return { found: false };
    // a path into a value that is not an object or array is not read (Mockoon gives the whole value)
    if (!isObject(value) && !Array.isArray(value)) return { found: true, value };
    let at: unknown = value;
    for (const part of dots === '' ? [] : dots.split('.')) {
      if (Array.isArray(at) && /^\d+$/.test(part)) at = at[Number(part)];
      else if (isObject(at) && Object.hasOwn(at, part)) at = at[part];
      else return { found: true, value: '' };
    }
    return { found: true, value: at };
  }

  /**
   * `text` with its reads of buckets written in: `{{data …}}` as the text Mockoon prints (objects as
   * JSON), `(data …)` / `(dataRaw …)` as a literal argument.
   */
  inline(text: string, pointer: string): string {
    if (!text.includes('data')) return text;
    const q = `('[^']*'|"[^"]*")`;
    const args = `\\s+${q}(?:\\s+${q})?\\s*`;
    const unq = (s: string | undefined) => (s === undefined ? '' : s.slice(1, -1));
    let out = text.replace(new RegExp(`\\{\\{\\{?~?\\s*data(?:Raw)?${args}~?\\}?\\}\\}`, 'g'), (whole, name, path) => {
      const r = this.read(unq(name), unq(path), pointer);
      if (!r.found) return whole;
      return verbatim(r.value === undefined || r.value === null ? '' : printed(r.value));
    });
    out = out.replace(new RegExp(`\\(\\s*data(?:Raw)?${args}\\)`, 'g'), (whole, name, path) => {
      const r = this.read(unq(name), unq(path), pointer);
      if (!r.found) return whole;
      return literal(r.value);
    });
    return out;
  }
}

function parsed(text: string): { ok: boolean; value: unknown } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: undefined };
  }
}

const printed = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * A value as a template argument: `(parseJson "…")` for objects and arrays, a string or number
 * literal otherwise. Braces inside are spelled so that no `{{` or `}}` appears in the tag.
 */
function literal(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const json = JSON.stringify(v);
  let safe = '';
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (inString) {
      if (c === '\\') {
        safe += c + json[++i];
        continue;
      }
      if (c === '"') inString = false;
      safe += c === '{' ? '\\u007b' : c === '}' ? '\\u007d' : c;
    } else {
      if (c === '"') inString = true;
      safe += c === '{' ? '{ ' : c === '}' ? ' }' : c;
    }
  }
  return `(parseJson "${safe.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}")`;
}

/** The project variable a Mockoon global variable becomes (docs/interop.md). */
export const globalVar = (name: string) => `global_${name.replace(/[^A-Za-z0-9_]/g, '_')}`.slice(0, 64);

const QUOTED = `(?:'([^']*)'|"([^"]*)")`;

/**
 * Mockoon's global variables, kept across requests, as project variables (per mock session):
 * `{{setGlobalVar 'n' value}}` written at the top level of a body becomes a `store_variable` action
 * (scope project) and leaves the body, `{{getGlobalVar 'n'}}` reads `{{project.global_n}}`. A
 * `setGlobalVar` inside a block stays (it then lives for that render only, with a warning).
 */
export function globalVars(
  body: string,
  pointer: string,
  warnings: ImportWarning[],
): { body: string; sets: { name: string; value: string }[] } {
  if (!body.includes('GlobalVar')) return { body, sets: [] };
  const sets: { name: string; value: string }[] = [];
  let depth = 0;
  let out = '';
  let from = 0;
  const tag = /\{\{~?\s*([#/]?)([^{}]*?)\s*~?\}\}/g;
  const set = new RegExp(`^setGlobalVar\\s+${QUOTED}\\s+(.+)$`);
  for (const m of body.matchAll(tag)) {
    if (m[1] === '#') depth++;
    else if (m[1] === '/') depth = Math.max(0, depth - 1);
    const s = m[1] === '' ? set.exec(m[2]) : null;
    if (!s) continue;
    if (depth > 0) {
      warnings.push({ pointer, message: 'setGlobalVar inside a block keeps its value for this answer only' });
      continue;
    }
    const value = s[3].trim().replace(/^\((.*)\)$/s, '$1');
    sets.push({ name: globalVar(s[1] ?? s[2] ?? ''), value: `{{${value}}}` });
    out += body.slice(from, m.index);
    from = (m.index ?? 0) + m[0].length;
  }
  out += body.slice(from);
  out = out
    .replace(
      new RegExp(`\\{\\{~?\\s*getGlobalVar\\s+${QUOTED}\\s*~?\\}\\}`, 'g'),
      (_w, a, b) => `{{project.${globalVar(a ?? b)}}}`,
    )
    .replace(new RegExp(`\\(\\s*getGlobalVar\\s+${QUOTED}\\s*\\)`, 'g'), (_w, a, b) => `project.${globalVar(a ?? b)}`);
  return { body: out, sets };
}
