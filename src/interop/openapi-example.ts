/** Example values generated from JSON Schemas, for OpenAPI operations that give no example. */
import { fakeString } from '../runtime/faker.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const MAX_DEPTH = 8;
const MAX_NODES = 2000;

const STRING_FORMATS: Record<string, string> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '12:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  uri: 'https://example.com',
  'uri-reference': '/example',
  iri: 'https://example.com',
  url: 'https://example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  byte: 'ZXhhbXBsZQ==',
  binary: '',
  password: 'password',
  regex: '^.*$',
  'json-pointer': '/example',
};

interface Budget {
  nodes: number;
}

function firstType(schema: Json): string | undefined {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return (t.find((x) => x !== 'null') ?? t[0]) as string | undefined;
  if (isObject(schema.properties) || schema.additionalProperties !== undefined) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function numberFor(schema: Json, integer: boolean): number {
  let n = 0;
  const min = schema.minimum;
  const exMin = schema.exclusiveMinimum;
  const max = schema.maximum;
  if (typeof min === 'number') n = exMin === true ? min + 1 : min;
  else if (typeof exMin === 'number') n = exMin + 1;
  else if (typeof max === 'number' && max < 0) n = max;
  else if (typeof schema.exclusiveMaximum === 'number' && schema.exclusiveMaximum <= 0) n = schema.exclusiveMaximum - 1;
  return integer ? Math.ceil(n) : n;
}

function generate(schema: unknown, depth: number, budget: Budget, property = ''): unknown {
  if (!isObject(schema) || typeof schema.$ref === 'string') return null;
  if (++budget.nodes > MAX_NODES) return null;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];

  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const { allOf, ...own } = schema;
    const parts = [...(allOf as unknown[]), own].map((s) => generate(s, depth, budget));
    const objects = parts.filter(isObject);
    if (objects.length > 0) return Object.assign({}, ...objects);
    return parts.find((p) => p !== null && p !== undefined) ?? null;
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const pick = options.find((o) => !(isObject(o) && o.type === 'null')) ?? options[0];
      return generate(pick, depth, budget);
    }
  }

  switch (firstType(schema)) {
    case 'object': {
      const out: Json = {};
      if (depth >= MAX_DEPTH) return out;
      const props = isObject(schema.properties) ? schema.properties : {};
      for (const [name, sub] of Object.entries(props)) {
        if (isObject(sub) && sub.writeOnly === true) continue;
        out[name] = generate(sub, depth + 1, budget, name);
      }
      return out;
    }
    case 'array': {
      if (depth >= MAX_DEPTH || schema.items === undefined || schema.maxItems === 0) return [];
      return [generate(schema.items, depth + 1, budget, property)];
    }
    case 'string': {
      const format = typeof schema.format === 'string' ? schema.format : undefined;
      // a format's typical value; else, with faker loaded (the import route loads it), a realistic
      // value by the property's name — a name for `name`, an email for `email` — instead of "string"
      if (format && STRING_FORMATS[format] !== undefined) return STRING_FORMATS[format];
      return fakeString(property, undefined) ?? 'string';
    }
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'boolean':
      return true;
    default:
      return null;
  }
}

/**
 * A small deterministic example of a JSON Schema (OpenAPI 3.0 schema object or 3.1 JSON Schema):
 * `example`/`examples`/`default`/`const`/first `enum` value when given, else a value of its type
 * (formats get a typical value — with faker loaded, string properties get a realistic one by format
 * or name, the same every time —, numbers honour `minimum`, arrays have one item, objects every
 * property but write-only ones). Nesting stops at depth 8 and 2000 values, so circular schemas end.
 */
export function exampleFromSchema(schema: unknown): unknown {
  return generate(schema, 0, { nodes: 0 });
}
