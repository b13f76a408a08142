import { describe, expect, it } from 'vitest';
import { assignPlain, mergedPlain, withField } from './plain-objects.js';

/** Keys, values and own-ness as a spread makes them (JSON text and Object.keys order). */
const shape = (o: object) => ({ keys: Object.keys(o), json: JSON.stringify(o), proto: Object.getPrototypeOf(o) });

describe('plain objects', () => {
  const bodies = [
    '{"name":"new item","price":12.5,"tags":["a","b"]}',
    '{"2":"two","b":1,"1":"one","a":{"deep":true}}',
    '{"id":null,"name":"x"}',
    '{"__proto__":{"polluted":true},"name":"x"}',
    '{}',
  ];

  it('withField makes what { ...from, [key]: value } makes, for every key order and a key already there', () => {
    for (const text of bodies)
      for (const key of ['id', 'name', '__proto__', '0']) {
        const from = JSON.parse(text) as Record<string, unknown>;
        const made = withField(from, key, 'v');
        expect(shape(made)).toEqual(shape({ ...from, [key]: 'v' }));
        expect(made).not.toBe(from);
      }
  });

  it('keeps __proto__ an own property and never sets the prototype', () => {
    const from = JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const made = withField(from, 'id', 1);
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.hasOwn(made, '__proto__')).toBe(true);
    expect((made as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(made)).toBe('{"__proto__":{"polluted":true},"id":1}');
  });

  it('mergedPlain makes what { ...a, ...b } makes, and leaves both alone', () => {
    const a = JSON.parse('{"id":"1","name":"old","n":1}') as Record<string, unknown>;
    const b = JSON.parse('{"name":"new","extra":[1],"__proto__":null}') as Record<string, unknown>;
    expect(shape(mergedPlain(a, b))).toEqual(shape({ ...a, ...b }));
    expect(a).toEqual({ id: '1', name: 'old', n: 1 });
    expect(Object.keys(b)).toEqual(['name', 'extra', '__proto__']);
  });

  it('assignPlain copies own enumerable keys only, into the object it is given', () => {
    const proto = { inherited: 1 };
    const from = Object.create(proto) as Record<string, unknown>;
    from.own = 2;
    Object.defineProperty(from, 'hidden', { value: 3, enumerable: false });
    const into = { first: 0 };
    expect(assignPlain(into, from)).toBe(into);
    expect(into).toEqual({ first: 0, own: 2 });
  });
});
