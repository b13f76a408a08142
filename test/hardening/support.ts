/**
 * Shared pieces of the hardening tests: the contract's error shape as an assertion, arbitraries
 * derived from the TypeBox schemas (src/domain/schemas.ts), and a raw-socket HTTP client for
 * requests that fetch refuses to send (odd methods, invalid escapes, dot segments kept as is).
 */

import net from 'node:net';
import fc from 'fast-check';
import { expect } from 'vitest';
import { ERRORS } from '../../src/domain/errors.js';
import type { Store } from '../../src/store/index.js';
import { type HttpAnswer, ROOT } from '../helpers/server.js';

/** `{error: {code, message, details?}}` with a code from the table whose status is the answer's. */
export function expectErrorShape(r: { status: number; text: string; headers: Headers }): void {
  const ctx = `${r.status} ${r.text.slice(0, 400)}`;
  expect(r.headers.get('content-type') ?? '', ctx).toMatch(/^application\/json/);
  // biome-ignore lint/suspicious/noExplicitAny: inspected freely
  let body: any;
  expect(() => {
    body = JSON.parse(r.text);
  }, ctx).not.toThrow();
  // a mock request no endpoint matched may add the nearest endpoints (docs/api.md "Mock traffic")
  const keys = Object.keys(body ?? {});
  expect(keys, ctx).toEqual(
    body?.error?.code === 'mock_not_found' && 'nearest' in body ? ['error', 'nearest'] : ['error'],
  );
  if ('nearest' in (body ?? {})) expect(body.nearest.length, ctx).toBeLessThanOrEqual(3);
  const e = body.error;
  for (const k of Object.keys(e)) expect(['code', 'message', 'details'], ctx).toContain(k);
  expect(typeof e.code, ctx).toBe('string');
  expect(Object.hasOwn(ERRORS, e.code), ctx).toBe(true);
  expect(ERRORS[e.code as keyof typeof ERRORS].status, ctx).toBe(r.status);
  expect(typeof e.message, ctx).toBe('string');
  expect(e.message.length, ctx).toBeGreaterThan(0);
  if (e.details !== undefined) {
    expect(Array.isArray(e.details), ctx).toBe(true);
    for (const d of e.details) {
      expect(Object.keys(d).sort(), ctx).toEqual(['message', 'path']);
      expect(typeof d.path, ctx).toBe('string');
      expect(typeof d.message, ctx).toBe('string');
    }
  }
  expectNoLeak(r.text);
}

/** No stack trace, source file or checkout path in an answer. */
export function expectNoLeak(text: string): void {
  expect(text).not.toMatch(/\n\s+at |\bat [\w.<>]+ \(|\.ts:\d+:\d+|\.js:\d+:\d+|node:internal|"stack"/);
  expect(text).not.toContain(ROOT);
}

// ------------------------------------------------------------------------------------------------
// arbitraries from JSON schemas

// biome-ignore lint/suspicious/noExplicitAny: JSON schemas are walked structurally
type Schema = any;
export type Overrides = Record<string, fc.Arbitrary<unknown>>;

/** Text that mixes printable ASCII, any Unicode, NUL, CR/LF and template braces. */
export const text = (maxLength = 24): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.constantFrom('{{', '}}', '\u0000', '\r\n', '%', '..', '/', '\\', '"', '$uuid', ' ', 'ä', '😀'), {
          maxLength: 6,
        })
        .map((a) => a.join('')),
    },
  );

/**
 * Values that satisfy `schema` (lengths capped so runs stay fast). `overrides` replace the
 * arbitrary of a property by name, to reach past the semantic checks of validate.ts.
 */
export function fromSchema(schema: Schema, overrides: Overrides = {}, name = ''): fc.Arbitrary<unknown> {
  if (name && overrides[name]) return overrides[name];
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s: Schema) => fromSchema(s, overrides, name)));
  if (schema.oneOf) return fc.oneof(...schema.oneOf.map((s: Schema) => fromSchema(s, overrides, name)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = Math.max(min, Math.min(schema.maxLength ?? 24, 24));
      return fc.string({ minLength: min, maxLength: max });
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items, overrides), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    case 'object': {
      if (schema.patternProperties) {
        const value = Object.values(schema.patternProperties)[0];
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fromSchema(value, overrides), {
          maxKeys: 3,
        });
      }
      const props: Record<string, Schema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, s] of Object.entries(props)) model[k] = fromSchema(s, overrides, k);
      return fc.record(model, { requiredKeys: required });
    }
    default:
      // Type.Unknown (read-only fields): anything
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A management request body as sent on the wire. */
export interface WireBody {
  body?: string;
  contentType?: string;
  label: string;
}

/**
 * Bodies for a route with this schema: valid ones (derived), valid ones with one field broken,
 * dropped or added, any JSON value, broken JSON, and non-JSON content types.
 */
export function bodies(schema: Schema, overrides: Overrides = {}): fc.Arbitrary<WireBody> {
  const valid = fromSchema(schema, overrides) as fc.Arbitrary<Record<string, unknown>>;
  const json = (label: string) => (v: unknown) => ({
    body: JSON.stringify(v),
    contentType: 'application/json',
    label,
  });
  const keys = Object.keys(schema.properties ?? {});
  const someKey = keys.length ? fc.constantFrom(...keys) : fc.constant('x');
  return fc.oneof(
    { weight: 5, arbitrary: valid.map(json('valid')) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, someKey, fc.jsonValue({ maxDepth: 2 }))
        .map(([v, k, x]) => json('wrong-type')({ ...v, [k]: x })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, someKey).map(([v, k]) => {
        const copy = { ...v };
        delete copy[k];
        return json('dropped')(copy);
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.string({ minLength: 1, maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }))
        .map(([v, k, x]) => json('extra')({ ...v, [k]: x })),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(json('any-json')) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(text(40), fc.constantFrom('{', '{"a":', '[1,', 'nul', '\u0000', '{"name":"x"}}', ' '))
        .map((b) => ({ body: b, contentType: 'application/json', label: 'raw' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/xml',
            'application/json; charset=latin1',
            'application/vnd.api+json',
            '',
          ),
        )
        .map(([v, ct]) => ({ body: JSON.stringify(v), contentType: ct, label: `ctype:${ct}` })),
    },
    { weight: 1, arbitrary: fc.constant({ label: 'no-body' }) },
  );
}

// ------------------------------------------------------------------------------------------------
// raw HTTP

export interface RawAnswer {
  status: number | null;
  head: string;
  body: string;
  closedWithoutAnswer: boolean;
}

/**
 * Writes `bytes` to a fresh connection (the request should say `Connection: close`) and reads until
 * the server closes it or `timeoutMs` passes. Answers the status of the first response line.
 */
export function rawRequest(port: number, bytes: Buffer | string, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${String(bytes).slice(0, 200)}`));
    }, timeoutMs);
    // not end(): a half-closed client gets its request aborted by node:http (httpAllowHalfOpen)
    sock.on('connect', () => sock.write(bytes));
    sock.on('data', (c) => chunks.push(c));
    sock.on('error', () => {
      /* a reset after the answer is fine; 'close' follows */
    });
    sock.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(all);
      const split = all.indexOf('\r\n\r\n');
      resolve({
        status: m ? Number(m[1]) : null,
        head: split === -1 ? all : all.slice(0, split),
        body: split === -1 ? '' : all.slice(split + 4),
        closedWithoutAnswer: all.length === 0,
      });
    });
  });
}

export type { HttpAnswer };

/** The caller's whole tree, read straight from the store (one process, no HTTP round trips), as text. */
export async function treeOf(store: Store, uid: string): Promise<string> {
  const projects = await store.projects.list(uid);
  const tree = await Promise.all(
    projects.map(async (p) => {
      const endpoints = await store.endpoints.list(uid, p.id);
      return {
        p,
        endpoints: await Promise.all(
          endpoints.map(async (e) => ({
            e,
            rules: await store.rules.list(uid, p.id, e.id),
            storage: await store.storage.get(uid, p.id, e.id, ''),
          })),
        ),
      };
    }),
  );
  return JSON.stringify(tree);
}

/** The body of a raw answer, de-chunked when it is chunked. */
export function decodeChunked(ans: { head: string; body: string }): string {
  if (!/transfer-encoding:\s*chunked/i.test(ans.head)) return Buffer.from(ans.body, 'latin1').toString('utf8');
  let rest = ans.body;
  let out = '';
  for (;;) {
    const nl = rest.indexOf('\r\n');
    if (nl === -1) break;
    const size = Number.parseInt(rest.slice(0, nl), 16);
    if (!size) break;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
  return Buffer.from(out, 'latin1').toString('utf8');
}
