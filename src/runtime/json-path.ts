/** Dot paths into JSON documents (`items.0.name`), shared by templates and `body_json` conditions. */

/** One segment of a dot path, with its array index precomputed (-1: not a canonical index). */
export interface JsonPathSegment {
  readonly key: string;
  readonly index: number;
}

const INDEX_RE = /^(?:0|[1-9][0-9]{0,14})$/;

/** `items.0.name` → segments. An empty path ('') addresses the whole document. */
export function compileJsonPath(path: string): readonly JsonPathSegment[] {
  if (path === '') return [];
  return compilePathSegments(path.split('.'));
}

export function compilePathSegments(keys: readonly string[]): readonly JsonPathSegment[] {
  return keys.map((key) => ({ key, index: INDEX_RE.test(key) ? Number(key) : -1 }));
}

/** The value at `path` in a parsed JSON document, or `undefined` when a segment is missing (own keys only). */
export function readJsonPath(root: unknown, path: readonly JsonPathSegment[]): unknown {
  let cur = root;
  for (let i = 0; i < path.length; i++) {
    if (cur === null || typeof cur !== 'object') return undefined;
    const seg = path[i];
    if (Array.isArray(cur)) {
      if (seg.index < 0 || seg.index >= cur.length) return undefined;
      cur = cur[seg.index];
    } else {
      if (!Object.hasOwn(cur, seg.key)) return undefined;
      cur = (cur as Record<string, unknown>)[seg.key];
    }
  }
  return cur;
}

/** body_json rendering (docs/api.md "Rules"): strings as is, numbers/booleans/null as JSON text, objects/arrays compact JSON. */
export function renderJsonValue(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}
