/**
 * `{{faker …}}` templates: faker's methods by dot path with JSON arguments, the same values for the
 * same seed, '' for what is not a faker method, and no code reachable through the path.
 */

import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRng } from './context.js';
import { callFaker, FAKER_METHODS, fakerLoaded, loadFaker } from './faker.js';
import { compileTemplate, usesFaker } from './template.js';
import type { EvalContext } from './types.js';

const ctx = (rng: () => number): EvalContext =>
  ({ rng, vars: new Map(), storage: new Map(), projectStorage: new Map() }) as unknown as EvalContext;

describe('faker templates', () => {
  it('is not loaded until something uses it', () => {
    expect(fakerLoaded()).toBe(false);
    expect(usesFaker('{{request.query.a}} {{json (faker "person.firstName")}}')).toBe(true);
    expect(usesFaker('{{request.query.faker}}')).toBe(false);
  });

  describe('once loaded', () => {
    beforeAll(async () => {
      await loadFaker();
    });

    it('calls a method by dot path, with JSON literal arguments', () => {
      const t = compileTemplate(
        '{"name":"{{faker "person.firstName"}}","die":{{faker "number.int" {"min":1,"max":6}}}}',
      );
      const out = JSON.parse(t(ctx(Math.random)));
      expect(typeof out.name).toBe('string');
      expect(out.name.length).toBeGreaterThan(0);
      expect(out.die).toBeGreaterThanOrEqual(1);
      expect(out.die).toBeLessThanOrEqual(6);
      expect(compileTemplate('{{faker "internet.email"}}')(ctx(Math.random))).toMatch(/^\S+@\S+\.\S+$/);
      expect(compileTemplate('{{faker "string.alpha" 5}}')(ctx(Math.random))).toMatch(/^[A-Za-z]{5}$/);
      expect(compileTemplate('{{faker "helpers.arrayElement" ["a","b"]}}')(ctx(Math.random))).toMatch(/^[ab]$/);
    });

    it('gives the same values for the same seed, and varies without one', () => {
      const t = compileTemplate('{{faker "person.fullName"}}|{{faker "number.int" {"min":1,"max":1000}}}');
      expect(t(ctx(seededRng('42')))).toBe(t(ctx(seededRng('42'))));
      const seen = new Set(Array.from({ length: 20 }, () => t(ctx(Math.random))));
      expect(seen.size).toBeGreaterThan(1);
    });

    it('gives imported schemas realistic strings by property name, the same every time', async () => {
      const { exampleFromSchema } = await import('../interop/openapi-import.js');
      const schema = {
        type: 'object',
        properties: {
          name: { type: 'string' },
          email: { type: 'string' },
          city: { type: 'string' },
          id: { type: 'string', format: 'uuid' },
          other: { type: 'string' },
        },
      };
      const a = exampleFromSchema(schema) as Record<string, string>;
      expect(a.name).not.toBe('string');
      expect(a.name).toMatch(/\S+ \S+/);
      expect(a.email).toMatch(/^\S+@\S+\.\S+$/);
      expect(a.city.length).toBeGreaterThan(0);
      expect(a.id).toBe('3fa85f64-5717-4562-b3fc-2c963f66afa6');
      expect(a.other).toBe('string');
      expect(exampleFromSchema(schema)).toEqual(a);
    });

    it('renders "" for unknown methods, bad paths and oversized arguments', () => {
      for (const src of [
        '{{faker "person.nope"}}',
        '{{faker "person"}}',
        '{{faker "constructor.constructor"}}',
        '{{faker "person.constructor"}}',
        '{{faker "seed" 1}}',
        '{{faker request.path}}',
        '{{faker "string.alpha" 100000000}}',
        '{{faker "lorem.paragraphs" {"min":1,"max":1000000}}}',
        '{{faker "string.alpha" 10001}}',
        '{{faker "string.alpha" {"length":{"min":1,"max":20000000}}}}',
        '{{faker "helpers.fromRegExp" "[a-z]{20000000}"}}',
        '{{faker "helpers.fromRegExp" "[a-z]{1001}"}}',
        '{{faker "helpers.arrayElements" ["a","b"] 20000}}',
        '{{faker "date.betweens" {"from":"2020-01-01","to":"2021-01-01","count":100000}}}',
      ]) {
        expect(compileTemplate(`[${src}]`)(ctx(Math.random)), src).toBe('[]');
      }
      expect(callFaker('__proto__.x', [], Math.random)).toBeUndefined();
      // generators that compile caller-given patterns or templates are not callable
      expect(callFaker('helpers.mustache', ['{{a}}', { a: '(a+)+$' }], Math.random)).toBeUndefined();
      expect(callFaker('helpers.fake', ['{{string.alpha(20000000)}}'], Math.random)).toBeUndefined();
      expect(callFaker('helpers.fake', ['\\{\\{string.alpha(20000000)\\}\\}'], Math.random)).toBeUndefined();
    });

    it('caps sizes at 10,000, not values: number.int takes any range, sizes up to the cap work', () => {
      const big = compileTemplate('{{faker "number.int" {"min":1000000,"max":1000000000}}}')(ctx(Math.random));
      expect(Number(big)).toBeGreaterThanOrEqual(1_000_000);
      expect(compileTemplate('{{faker "string.alpha" 10000}}')(ctx(Math.random))).toMatch(/^[A-Za-z]{10000}$/);
      expect(compileTemplate('{{faker "helpers.fromRegExp" "[a-c]{1000}"}}')(ctx(Math.random))).toMatch(
        /^[a-c]{1000}$/,
      );
      expect(compileTemplate('{{faker "lorem.words" 3}}')(ctx(Math.random)).split(' ')).toHaveLength(3);
    });

    it('every allowed method exists on faker, and nothing outside the list is callable', async () => {
      const { faker } = await import('@faker-js/faker/locale/en');
      for (const [m, names] of Object.entries(FAKER_METHODS))
        for (const n of names)
          expect(typeof (faker as unknown as Record<string, Record<string, unknown>>)[m][n], `${m}.${n}`).toBe(
            'function',
          );
      expect(callFaker('helpers.multiple', [], Math.random)).toBeUndefined();
      // docs/templates.md lists exactly these methods
      const doc = fs.readFileSync(path.join(import.meta.dirname, '../../docs/templates.md'), 'utf8');
      const table = doc.slice(doc.indexOf('| module | methods |'));
      const listed = Object.fromEntries(
        [...table.matchAll(/^\| `(\w+)` \| (.*) \|$/gm)].map((m) => [
          m[1],
          [...m[2].matchAll(/`(\w+)`/g)].map((x) => x[1]),
        ]),
      );
      expect(listed).toEqual(FAKER_METHODS);
      expect(callFaker('person.firstName', [], Math.random)).toMatch(/\S/);
    });
  });
});
