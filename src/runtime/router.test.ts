import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePattern, type RouteMatch, Router, routeKey, validatePattern } from './router.js';

function routerOf(patterns: string[], method = 'GET'): Router<string> {
  const r = new Router<string>();
  for (const p of patterns) r.add(method, p, p);
  return r;
}

const hit = (r: Router<string>, path: string, method = 'GET') => {
  const m = r.match(method, path);
  return m === null ? null : { value: m.value, params: { ...m.params } };
};

describe('Router: literals, params, wildcard', () => {
  const r = routerOf(['/', '/hello', '/users/:id', '/users/:id/posts/:postId', '/files/*', '/api/users/me']);
  it.each([
    ['/', '/', {}],
    ['', '/', {}],
    ['/hello', '/hello', {}],
    ['/users/42', '/users/:id', { id: '42' }],
    ['/users/42/posts/7', '/users/:id/posts/:postId', { id: '42', postId: '7' }],
    ['/files/a', '/files/*', { '*': 'a' }],
    ['/files/a/b/c.txt', '/files/*', { '*': 'a/b/c.txt' }],
    ['/api/users/me', '/api/users/me', {}],
  ])('%j → %s %j', (path, value, params) => {
    expect(hit(r, path)).toEqual({ value, params });
  });

  it.each(['/nope', '/hello/x', '/users', '/users/42/posts', '/files', '/files/', '/HELLO', '/api/users'])(
    '%j has no route',
    (path) => {
      expect(r.match('GET', path)).toBeNull();
    },
  );

  it('a :param needs a non-empty segment', () => {
    expect(r.match('GET', '/users//posts/7')).toBeNull();
  });

  it('methods are separate tables; the method is compared upper-case', () => {
    const m = new Router<string>();
    m.add('get', '/x', 'get');
    m.add('POST', '/x', 'post');
    expect(m.match('GET', '/x')?.value).toBe('get');
    expect(m.match('post', '/x')?.value).toBe('post');
    expect(m.match('DELETE', '/x')).toBeNull();
  });

  it('params are a null-prototype object', () => {
    const m = r.match('GET', '/users/42');
    expect(Object.getPrototypeOf(m?.params)).toBeNull();
    expect(r.match('GET', '/hello')?.params.toString).toBeUndefined();
  });

  it('param values named like prototype members are data', () => {
    const m = routerOf(['/x/:constructor']).match('GET', '/x/__proto__');
    expect(m?.params.constructor).toBe('__proto__');
    expect(routerOf(['/__proto__']).match('GET', '/__proto__')?.value).toBe('/__proto__');
    expect(routerOf(['/a']).match('GET', '/constructor')).toBeNull();
  });
});

describe('Router: precedence (literal > :param > *)', () => {
  const patterns = ['/a/*', '/a/:x', '/a/b'];
  for (const order of [patterns, [...patterns].reverse(), ['/a/:x', '/a/*', '/a/b']]) {
    it(`added in order ${order.join(' ')}`, () => {
      const r = routerOf(order);
      expect(hit(r, '/a/b')).toEqual({ value: '/a/b', params: {} });
      expect(hit(r, '/a/c')).toEqual({ value: '/a/:x', params: { x: 'c' } });
      expect(hit(r, '/a/c/d')).toEqual({ value: '/a/*', params: { '*': 'c/d' } });
    });
  }

  it('backtracks from a literal into a :param', () => {
    for (const order of [
      ['/a/:x/c', '/a/b/d'],
      ['/a/b/d', '/a/:x/c'],
    ]) {
      const r = routerOf(order);
      expect(hit(r, '/a/b/c')).toEqual({ value: '/a/:x/c', params: { x: 'b' } });
      expect(hit(r, '/a/b/d')).toEqual({ value: '/a/b/d', params: {} });
      expect(r.match('GET', '/a/b/e')).toBeNull();
    }
  });

  it('backtracks into a wildcard, and drops captures of abandoned branches', () => {
    const r = routerOf(['/a/:x/:y/z', '/a/*', '/a/:x/q']);
    expect(hit(r, '/a/1/2/z')).toEqual({ value: '/a/:x/:y/z', params: { x: '1', y: '2' } });
    expect(hit(r, '/a/1/2/w')).toEqual({ value: '/a/*', params: { '*': '1/2/w' } });
    expect(hit(r, '/a/1/q')).toEqual({ value: '/a/:x/q', params: { x: '1' } });
  });

  it('a deeper literal wildcard beats a shallower one', () => {
    const r = routerOf(['/*', '/static/*']);
    expect(hit(r, '/static/app.js')?.value).toBe('/static/*');
    expect(hit(r, '/other/app.js')).toEqual({ value: '/*', params: { '*': 'other/app.js' } });
    expect(r.match('GET', '/')).toBeNull();
  });

  it('two patterns for the same route: the first added is kept', () => {
    const r = routerOf(['/u/:id', '/u/:name', '/v', '/v/']);
    expect(hit(r, '/u/1')).toEqual({ value: '/u/:id', params: { id: '1' } });
    expect(hit(r, '/v')?.value).toBe('/v');
  });
});

describe('Router: trailing slash and decoding', () => {
  it('ignores a trailing slash on patterns and requests', () => {
    const r = routerOf(['/hello/', '/world', '/p/:id/']);
    for (const path of ['/hello', '/hello/']) expect(hit(r, path)?.value).toBe('/hello/');
    for (const path of ['/world', '/world/']) expect(hit(r, path)?.value).toBe('/world');
    expect(hit(r, '/p/1/')).toEqual({ value: '/p/:id/', params: { id: '1' } });
    expect(r.match('GET', '/world//')).toBeNull();
  });

  it('root stays root', () => {
    const r = routerOf(['/']);
    expect(hit(r, '/')?.value).toBe('/');
    expect(r.match('GET', '/x')).toBeNull();
  });

  it('percent-decodes request segments before matching and for params', () => {
    const r = routerOf(['/café', '/users/:name', '/files/*']);
    expect(hit(r, '/caf%C3%A9')?.value).toBe('/café');
    expect(hit(r, '/users/ann%20lee')).toEqual({ value: '/users/:name', params: { name: 'ann lee' } });
    expect(hit(r, '/users/a%2Fb')).toEqual({ value: '/users/:name', params: { name: 'a/b' } });
    expect(hit(r, '/files/a%20b/c')).toEqual({ value: '/files/*', params: { '*': 'a b/c' } });
  });

  it('falls back to the raw segment on a malformed escape', () => {
    const r = routerOf(['/users/:name', '/lit/%zz']);
    expect(hit(r, '/users/%E0%A4%A')).toEqual({ value: '/users/:name', params: { name: '%E0%A4%A' } });
    expect(hit(r, '/users/100%')).toEqual({ value: '/users/:name', params: { name: '100%' } });
    expect(hit(r, '/lit/%zz')?.value).toBe('/lit/%zz');
  });

  it('decodes pattern literals too', () => {
    const r = routerOf(['/caf%C3%A9']);
    expect(hit(r, '/café')?.value).toBe('/caf%C3%A9');
    expect(hit(r, '/caf%C3%A9')?.value).toBe('/caf%C3%A9');
  });
});

describe('Router: scale', () => {
  it('10,000 routes: every one is found, lookups do not scan', () => {
    const r = new Router<number>();
    const paths: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const p = i % 3 === 0 ? `/svc${i % 50}/items${i}/:id` : i % 3 === 1 ? `/svc${i % 50}/static/${i}` : `/r${i}/*`;
      paths.push(p);
      r.add(i % 2 === 0 ? 'GET' : 'POST', p, i);
    }
    for (let i = 0; i < 10_000; i++) {
      const req = paths[i].replace(':id', 'x').replace('*', 'a/b');
      expect(r.match(i % 2 === 0 ? 'GET' : 'POST', req)?.value).toBe(i);
    }
    expect(r.match('GET', '/svc1/items99999/x')).toBeNull();
    // a miss and a hit cost about the same however many routes exist (no assertion on wall-clock time)
    const t0 = performance.now();
    for (let i = 0; i < 100_000; i++) r.match('GET', '/svc0/items0/42');
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});

describe('normalizePattern', () => {
  it.each([
    ['/hello/', '/hello'],
    ['/hello', '/hello'],
    ['/', '/'],
    ['/a/:id/', '/a/:id'],
  ])('%s → %s', (p, n) => expect(normalizePattern(p)).toBe(n));
});

describe('routeKey', () => {
  it('is equal for patterns the router cannot tell apart', () => {
    expect(routeKey('/a/:x')).toBe(routeKey('/a/:y/'));
    expect(routeKey('/café')).toBe(routeKey('/caf%C3%A9'));
    expect(routeKey('/a/*')).not.toBe(routeKey('/a/%2A'));
    expect(routeKey('/a/:x')).not.toBe(routeKey('/a/%3Ax'));
    expect(routeKey('/a/b')).not.toBe(routeKey('/a/:b'));
    expect(routeKey('/')).toBe('/');
  });
});

describe('validatePattern', () => {
  it.each([
    '/',
    '/hello',
    '/hello/',
    '/users/:id',
    '/users/:user_id/posts/:Post2',
    '/files/*',
    '/*',
    '/a/:x/*',
    '/a:b/c',
  ])('%s is valid', (p) => expect(validatePattern(p)).toBeNull());
  it.each([
    ['', /start with \//],
    ['hello', /start with \//],
    ['/a/*/b', /last segment/],
    ['/a/b*', /whole segment/],
    ['/a/:', /name/],
    ['/a/:id-x', /name/],
    ['/a/:id.json', /name/],
    ['/a/:id/b/:id', /twice/],
    ['/a//b', /empty/],
    ['/a?x=1', /query/],
    ['/a#x', /fragment/],
  ])('%j is invalid (%s)', (p, message) => {
    expect(validatePattern(p)).toMatch(message);
  });
});

describe('Router matches without params', () => {
  it('answers a route without params with one prebuilt match, and a param route with fresh params', () => {
    const r = new Router<string>();
    r.add('GET', '/api/users', 'list');
    r.add('GET', '/api/users/:id', 'one');
    const a = r.match('GET', '/api/users');
    expect(a?.value).toBe('list');
    expect({ ...a?.params }).toEqual({});
    expect(r.match('GET', '/api/users/')).toBe(a);
    expect(Object.isFrozen(a?.params)).toBe(true);
    const x = r.match('GET', '/api/users/1');
    const y = r.match('GET', '/api/users/2');
    expect({ ...x?.params }).toEqual({ id: '1' });
    expect({ ...y?.params }).toEqual({ id: '2' });
    expect(x?.params).not.toBe(y?.params);
  });
});

describe('Router: literal routes looked up by their whole path', () => {
  it('the first of two patterns for the same route wins, whichever of them is encoded', () => {
    for (const [first, second] of [
      ['/caf%C3%A9', '/café'],
      ['/café', '/caf%C3%A9'],
    ]) {
      const r = routerOf([first, second]);
      for (const path of ['/café', '/caf%C3%A9', '/café/']) expect(hit(r, path)?.value).toBe(first);
    }
  });

  it('an encoded / in a pattern literal is one segment, not two', () => {
    const r = routerOf(['/a%2Fb', '/a/:x']);
    expect(hit(r, '/a/b')).toEqual({ value: '/a/:x', params: { x: 'b' } });
    expect(hit(r, '/a%2Fb')?.value).toBe('/a%2Fb');
  });

  it('answers a path as the trie answers it spelled with an escape (property)', () => {
    // segments from a small alphabet so that literals, params and wildcards overlap often
    const segment = fc.constantFrom('a', 'b', 'ab', ':x', ':y', '*');
    const pattern = fc
      .array(segment, { minLength: 0, maxLength: 4 })
      .map((segs) => `/${segs.filter((s, i) => s !== '*' || i === segs.length - 1).join('/')}`)
      .filter((p) => validatePattern(p) === null);
    const request = fc
      .tuple(fc.array(fc.constantFrom('a', 'b', 'ab', 'c'), { maxLength: 5 }), fc.boolean())
      .map(([segs, slash]) => `/${segs.join('/')}${slash && segs.length > 0 ? '/' : ''}`);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('GET', 'POST'), pattern), { maxLength: 12 }),
        request,
        (routes, path) => {
          const r = new Router<string>();
          for (const [i, [m, p]] of routes.entries()) r.add(m, p, `${i} ${m} ${p}`);
          // '%61' is 'a': the same path, but one the literal lookup leaves to the trie
          const escaped = path.replace('a', '%61');
          if (escaped === path) return;
          for (const m of ['GET', 'POST']) {
            const plain = r.match(m, path);
            const viaTrie = r.match(m, escaped);
            expect(plain === null ? null : { value: plain.value, params: { ...plain.params } }).toEqual(
              viaTrie === null ? null : { value: viaTrie.value, params: { ...viaTrie.params } },
            );
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
  it('answers every request of a sequence as a router without history does (the last-hit check)', () => {
    const segment = fc.constantFrom('a', 'b', 'ab', 'caf%C3%A9', 'café', ':x', '*');
    const pattern = fc
      .array(segment, { minLength: 0, maxLength: 3 })
      .map((segs) => `/${segs.filter((s, i) => s !== '*' || i === segs.length - 1).join('/')}`)
      .filter((p) => validatePattern(p) === null);
    const request = fc.tuple(
      fc.constantFrom('GET', 'POST'),
      fc
        .tuple(fc.array(fc.constantFrom('a', 'b', 'ab', 'café', 'caf%C3%A9', '%61'), { maxLength: 4 }), fc.boolean())
        .map(([segs, slash]) => `/${segs.join('/')}${slash && segs.length > 0 ? '/' : ''}`),
    );
    const build = (routes: [string, string][]) => {
      const r = new Router<string>();
      for (const [i, [m, p]] of routes.entries()) r.add(m, p, `${i} ${m} ${p}`);
      return r.built();
    };
    const spell = (m: RouteMatch<string> | null) => (m === null ? null : { value: m.value, params: { ...m.params } });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('GET', 'POST'), pattern), { maxLength: 10 }),
        fc.array(request, { minLength: 1, maxLength: 12 }),
        (routes, requests) => {
          const used = build(routes);
          for (const [m, path] of requests) {
            // the same path twice in a row takes the last-hit check the second time
            for (let twice = 0; twice < 2; twice++)
              expect(spell(used.match(m, path))).toEqual(spell(build(routes).match(m, path)));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
