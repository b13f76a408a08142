/**
 * OpenAPI schemas → JSON Schema 2020-12 for AJV (docs/contract.md): OpenAPI 3.0's `nullable` and
 * boolean `exclusiveMinimum`/`exclusiveMaximum` become their 2020-12 spellings; `readOnly`
 * properties may not be sent in a request (and are not required there), `writeOnly` ones may not
 * be answered; a recursive schema is checked to its first repetition (then anything is accepted).
 * Validators are compiled once per schema and direction, when first used, never per request.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Violation } from '../../domain/contract.js';

export type Direction = 'request' | 'response';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keywords whose value is a schema, a list of schemas, or a map of schemas. */
const ONE = [
  'items',
  'not',
  'additionalProperties',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
/** OpenAPI-only keywords AJV would not know (it runs non-strict, but these are dropped to keep the schema small). */
const DROP = new Set([
  'discriminator',
  'xml',
  'externalDocs',
  'example',
  'deprecated',
  '$schema',
  '$id',
  '$anchor',
  '$dynamicAnchor',
]);

export function normalise(schema: unknown, dir: Direction, openapi30: boolean, seen: unknown[] = []): unknown {
  if (schema === true || schema === false) return schema;
  if (!isObject(schema)) return {};
  if (seen.includes(schema)) return {};
  seen.push(schema);
  try {
    const out: Json = {};
    for (const [k, v] of Object.entries(schema)) {
      if (DROP.has(k) || k === 'nullable' || k === '$ref') continue;
      if (ONE.includes(k)) out[k] = typeof v === 'boolean' ? v : normalise(v, dir, openapi30, seen);
      else if (MANY.includes(k) && Array.isArray(v)) out[k] = v.map((x) => normalise(x, dir, openapi30, seen));
      else if (MAP.includes(k) && isObject(v))
        out[k] = Object.fromEntries(Object.entries(v).map(([name, x]) => [name, normalise(x, dir, openapi30, seen)]));
      else out[k] = v;
    }
    if (openapi30) {
      for (const [flag, bound] of [
        ['exclusiveMinimum', 'minimum'],
        ['exclusiveMaximum', 'maximum'],
      ] as const) {
        if (out[flag] === true && typeof out[bound] === 'number') {
          out[flag] = out[bound];
          delete out[bound];
        } else if (typeof out[flag] === 'boolean') delete out[flag];
      }
      if (schema.nullable === true) return nullable(out);
    }
    if (isObject(out.properties)) hideOneWay(out, dir);
    return out;
  } finally {
    seen.pop();
  }
}

function nullable(s: Json): Json {
  if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
  if (typeof s.type === 'string') return { ...s, type: [s.type, 'null'] };
  if (Array.isArray(s.type)) return s.type.includes('null') ? s : { ...s, type: [...s.type, 'null'] };
  return { anyOf: [s, { type: 'null' }] };
}

/** `readOnly` properties in a request, `writeOnly` ones in a response: not required, and not allowed. */
function hideOneWay(s: Json, dir: Direction): void {
  const flag = dir === 'request' ? 'readOnly' : 'writeOnly';
  const props = s.properties as Json;
  const hidden = Object.keys(props).filter((k) => isObject(props[k]) && (props[k] as Json)[flag] === true);
  if (hidden.length === 0) return;
  if (Array.isArray(s.required)) s.required = s.required.filter((r) => !hidden.includes(r as string));
  s.properties = { ...props, ...Object.fromEntries(hidden.map((k) => [k, { not: {}, [`x-${flag}`]: true }])) };
}

let ajv: Ajv2020 | null = null;

function instance(): Ajv2020 {
  if (ajv) return ajv;
  ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    verbose: true,
    validateFormats: true,
    coerceTypes: false,
    allowUnionTypes: true,
  });
  const addFormats = addFormatsModule as unknown as (a: Ajv2020) => Ajv2020;
  addFormats(ajv);
  // OpenAPI's own formats that ajv-formats does not check
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  for (const f of ['binary', 'password']) ajv.addFormat(f, true);
  return ajv;
}

/** A compiled check of one schema, or an always-true one when AJV cannot compile it (noted once). */
export interface SchemaCheck {
  (value: unknown): ErrorObject[] | null;
  readonly problem?: string;
}

/**
 * Checks already made, by the text of their normalised schema: a description that uses one schema
 * in many operations (a shared component, inlined where it is used) compiles it once, and so does a
 * project's contract compiled again after a change. AJV's compilation is most of a contract's cost
 * (a 12 MiB, 1,300-operation description: 6.3 s to build every check one by one, 0.25 s by text).
 * Emptied past MEMO_MAX, with the AJV instance: AJV keeps every schema it compiled in a cache of its
 * own, so the next checks get a new instance and the old one goes with the last check that uses it.
 */
const memo = new Map<string, SchemaCheck>();
const MEMO_MAX = 5000;

export function compileSchema(schema: unknown, dir: Direction, openapi30: boolean): SchemaCheck {
  const normalised = normalise(schema, dir, openapi30) as object;
  const key = JSON.stringify(normalised);
  const made = memo.get(key);
  if (made) return made;
  let check: SchemaCheck;
  try {
    const fn: ValidateFunction = instance().compile(normalised);
    check = (value: unknown) => (fn(value) ? null : (fn.errors ?? []).slice(0, 20));
  } catch (e) {
    check = Object.assign(() => null, { problem: e instanceof Error ? e.message : String(e) });
  }
  if (memo.size >= MEMO_MAX) {
    memo.clear();
    ajv = null;
  }
  memo.set(key, check);
  return check;
}

/** Schemas held by the memo and by the current AJV instance's own cache (read by the tests). */
export function schemasHeld(): { memo: number; ajv: number } {
  return { memo: memo.size, ajv: (ajv as unknown as { _cache?: Map<unknown, unknown> } | null)?._cache?.size ?? 0 };
}

/** AJV's errors as violations at `place` (a JSON pointer into the body for bodies). */
export function violationsOf(errors: readonly ErrorObject[], place: Violation['in'], name?: string): Violation[] {
  const out: Violation[] = [];
  for (const e of errors) {
    // the summary of a oneOf/anyOf whose branches were reported too, and a `not {}` of a one-way property
    if (e.keyword === 'if') continue;
    let pointer = e.instancePath;
    let message = e.message ?? 'is not valid';
    if (e.keyword === 'required')
      pointer = `${pointer}/${String((e.params as { missingProperty: string }).missingProperty)}`;
    if (e.keyword === 'not' && isObject(e.parentSchema) && e.parentSchema['x-readOnly'])
      message = 'is readOnly: it may not be sent in a request';
    if (e.keyword === 'not' && isObject(e.parentSchema) && e.parentSchema['x-writeOnly'])
      message = 'is writeOnly: it may not be in an answer';
    if (e.keyword === 'type' && place === 'body') message = `${message}, got ${typeName(e.data)}`;
    const v: Violation = { in: place, message, keyword: e.keyword };
    if (name !== undefined) v.name = name;
    if (place === 'body') v.pointer = pointer;
    out.push(v);
  }
  return out;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}
