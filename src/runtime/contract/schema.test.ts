/**
 * A schema is compiled once however many operations use it: its check is made by text, so a shared
 * component inlined in many places (or a contract compiled again after a change) reuses it.
 */
import { describe, expect, it } from 'vitest';
import { compileSchema, schemasHeld } from './schema.js';

describe('compileSchema', () => {
  it('answers one check for schemas of the same text, another for a different one', () => {
    const pet = () => ({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } });
    const a = compileSchema(pet(), 'request', true);
    const b = compileSchema(pet(), 'request', true);
    expect(b).toBe(a);
    expect(a({ name: 'Rex' })).toBeNull();
    expect(a({})?.[0]).toMatchObject({ keyword: 'required' });
    const other = compileSchema({ ...pet(), required: [] }, 'request', true);
    expect(other).not.toBe(a);
    expect(other({})).toBeNull();
  });

  it('keeps a schema it cannot compile as a problem, the same for each use', () => {
    const bad = () => ({ type: 'string', pattern: '(' });
    const a = compileSchema(bad(), 'response', false);
    expect(a.problem).toMatch(/pattern|regular expression|Invalid/i);
    expect(compileSchema(bad(), 'response', false)).toBe(a);
    expect(a('anything')).toBeNull();
  });

  it('holds a bounded number of schemas however many distinct ones a process compiles', () => {
    // more than the memo's 5,000: without a new AJV instance at each clear, AJV's own cache kept them all
    for (let i = 0; i < 6000; i++) {
      const check = compileSchema({ type: 'integer', minimum: i }, 'request', false);
      expect(check(i)).toBeNull();
      expect(check(i - 1)?.[0]).toMatchObject({ keyword: 'minimum' });
    }
    const held = schemasHeld();
    expect(held.memo).toBeLessThanOrEqual(5000);
    expect(held.ajv).toBeLessThanOrEqual(held.memo + 50);
  }, 60_000);
});
