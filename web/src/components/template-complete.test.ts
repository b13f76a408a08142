import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../../src/runtime/template';
import { completeTemplate, FAKER_METHODS, NO_HINTS, pathParams, type TemplateHints } from './template-complete';

const hints: TemplateHints = { params: ['id', 'orderId'], vars: ['user'], collections: ['orders'] };
const labels = (before: string, h = hints, explicit = false) =>
  completeTemplate(before, h, explicit)?.options.map((o) => o.label) ?? null;

describe('template completion', () => {
  it('offers nothing outside a tag, or after a closed one', () => {
    expect(completeTemplate('{"id": 1', hints)).toBeNull();
    expect(completeTemplate('{"id": "{{request.params.id}}", "x": "re', hints)).toBeNull();
  });

  it('lists the roots and the helpers right after {{', () => {
    const all = labels('{"id": "{{');
    expect(all).toEqual(expect.arrayContaining(['request.params.id', 'request.params.orderId', '$uuid', 'faker']));
    expect(all).toEqual(expect.arrayContaining(['vars.user.status', 'vars.user.body', 'endpoint.', 'project.']));
    expect(all).toContain('collection.orders.count');
  });

  it('narrows by the word typed and replaces from its start', () => {
    const before = '{"id": "{{request.pa';
    const c = completeTemplate(before, hints);
    expect(c?.from).toBe(before.length - 'request.pa'.length);
    expect(c?.options.map((o) => o.label)).toEqual(['request.path', 'request.params.id', 'request.params.orderId']);
    expect(labels('{{va')).toEqual(['vars.user.status', 'vars.user.body', 'vars.user.headers.']);
    expect(labels('{{$i')).toEqual(['$isoDate']);
  });

  it('offers a generic prefix when the endpoint has no parameters and the rule saves no vars', () => {
    expect(labels('{{request.p', NO_HINTS)).toEqual(['request.path', 'request.params.']);
    expect(labels('{{v', NO_HINTS)).toEqual(['vars.']);
  });

  it('offers paths and helpers as a helper argument (subexpressions call helpers)', () => {
    const after = labels('{{json req');
    expect(after).toContain('request.query.');
    expect(labels('{{json (', hints)).toContain('$uuid');
    expect(labels('{{default ', hints)).toContain('request.body');
  });

  it('closes a tag it completes, unless something closes it already', () => {
    expect(completeTemplate('{{request.met', hints)?.options[0].apply).toBe('request.method}}');
    expect(completeTemplate('{{request.met', hints, false, '}}')?.options[0].apply).toBe('request.method');
    const table = {
      ...hints,
      helpers: [{ name: 'uppercase', signature: 'uppercase text', description: 'Upper case.' }],
    };
    expect(completeTemplate('{{upper', table)?.options[0]).toMatchObject({
      label: 'uppercase',
      apply: 'uppercase }}',
      caretBack: 2,
    });
  });

  it('completes faker methods inside the quotes, closing them', () => {
    const c = completeTemplate('{{faker "person.f', hints);
    expect(c?.options.map((o) => o.label)).toEqual(['person.firstName', 'person.fullName']);
    expect(c?.options[0].apply).toBe('person.firstName"}}');
    // the editor closed the quote and the tag already: nothing more is typed
    expect(completeTemplate('{{faker "person.f', hints, false, '"}}')?.options[0].apply).toBe('person.firstName');
    expect(completeTemplate("{{faker 'person.f", hints)?.options[0].apply).toBe("person.firstName'}}");
    expect(completeTemplate('{{faker "', hints)?.options).toHaveLength(FAKER_METHODS.length);
    expect(completeTemplate('{{default request.query.q "an', hints)).toBeNull();
  });

  it('waits for a word unless asked (Ctrl-Space)', () => {
    expect(completeTemplate('{{json request.body.a', hints)).toBeNull();
    expect(completeTemplate('{{request.method', hints)).toBeNull();
    expect(labels('{{$randomInt 1', hints, true)).toBeNull();
  });

  it('every offered path and helper renders a value through the real template engine', () => {
    // a completion the engine does not know would render '' silently: each one, filled in, must not
    const rec = (o: Record<string, string>) => Object.assign(Object.create(null), o) as Record<string, string>;
    const req = {
      method: 'POST',
      path: '/p',
      rawQuery: 'x=Q',
      query: rec({ x: 'Q' }),
      headers: rec({ x: 'H' }),
      params: rec({ id: '7', orderId: '8' }),
      body: '{"x":"B"}',
      header: (n: string) => (n === 'x' ? 'H' : undefined),
      queryParam: (n: string) => (n === 'x' ? 'Q' : undefined),
    };
    const ctx = {
      req,
      vars: new Map([['user', { status: 200, headers: { x: 'V' }, body: '{"x":1}' }]]),
      storage: new Map([['x', 'S']]),
      projectStorage: new Map([['x', 'P']]),
      collectionCounts: new Map([['orders', 3]]),
      rng: () => 0.5,
      now: () => 0,
      uuid: () => 'u-1',
      json: () => ({ ok: true as const, value: { x: 'B' } }),
    } as unknown as Parameters<ReturnType<typeof compileTemplate>>[0];
    const options = completeTemplate('{{', hints, true)?.options ?? [];
    expect(options.length).toBeGreaterThan(15);
    for (const o of options) {
      if (o.label === 'faker') continue; // loaded lazily on the server; its methods are checked by faker.test.ts
      const args = o.label === 'default' ? 'request.path "d"' : 'request.path';
      const text = (o.apply ?? o.label).replace(/\.$/, '.x').replace(/ $/, ` ${args}`);
      expect(compileTemplate(`{{${text}}}`)(ctx), text).not.toBe('');
    }
  });

  it('reads the path parameters of an endpoint path', () => {
    expect(pathParams('/users/:id/orders/:order_id/*')).toEqual(['id', 'order_id']);
    expect(pathParams('/health')).toEqual([]);
  });
});
