/**
 * `$ref`s to `#/components/examples/X` where an example value is expected (`example: {$ref}`, or
 * inside an example's value) mean X's `value`, not the Example Object around it (GitHub's description
 * writes them so). Where an Example Object is expected (an entry of `examples`), a `$ref` stays as it
 * is for the dereferencer. Runs on the document before it is dereferenced; returns a changed copy
 * only when there is something to change.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const PREFIX = '#/components/examples/';

function componentValue(doc: Json, ref: string, seen: Set<string>): { found: boolean; value?: unknown } {
  if (!ref.startsWith(PREFIX) || seen.has(ref)) return { found: false };
  seen.add(ref);
  const name = ref.slice(PREFIX.length).replaceAll('~1', '/').replaceAll('~0', '~');
  const examples = isObject(doc.components) && isObject(doc.components.examples) ? doc.components.examples : {};
  const ex = Object.hasOwn(examples, name) ? examples[name] : undefined;
  if (!isObject(ex)) return { found: false };
  if (typeof ex.$ref === 'string') return componentValue(doc, ex.$ref, seen);
  return { found: ex.value !== undefined, value: ex.value };
}

/** An example value with its example `$ref`s replaced by the examples' values (a copy when changed). */
function exampleValue(doc: Json, v: unknown, depth: number): unknown {
  if (depth > 64 || v === null || typeof v !== 'object') return v;
  const ref = Array.isArray(v) ? undefined : (v as Json).$ref;
  if (typeof ref === 'string' && Object.keys(v).length === 1) {
    const r = componentValue(doc, ref, new Set());
    return r.found ? exampleValue(doc, r.value, depth + 1) : v;
  }
  let changed = false;
  const out: unknown = Array.isArray(v) ? [...v] : { ...v };
  for (const k of Object.keys(out as object)) {
    const before = (out as Json)[k];
    const after = exampleValue(doc, before, depth + 1);
    if (after !== before) {
      (out as Json)[k] = after;
      changed = true;
    }
  }
  return changed ? out : v;
}

/** The document with every example value's `$ref`s to components/examples read as their values. */
export function resolveExampleRefs(doc: Json): Json {
  if (!isObject(doc.components) || !isObject(doc.components.examples)) return doc;
  const walk = (node: unknown, depth: number): unknown => {
    if (depth > 200 || node === null || typeof node !== 'object') return node;
    let changed = false;
    const out: unknown = Array.isArray(node) ? [...node] : { ...node };
    for (const k of Object.keys(out as object)) {
      const before = (out as Json)[k];
      let after: unknown;
      if (!Array.isArray(node) && k === 'example') after = exampleValue(doc, before, 0);
      else if (!Array.isArray(node) && k === 'value' && isObject(node) && !('schema' in node))
        after = exampleValue(doc, before, 0);
      else after = walk(before, depth + 1);
      if (after !== before) {
        (out as Json)[k] = after;
        changed = true;
      }
    }
    return changed ? out : node;
  };
  return walk(doc, 0) as Json;
}
