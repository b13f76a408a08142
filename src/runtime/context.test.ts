import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headersFromRaw, MockRequestView, parseQuery } from './context.js';

describe('parseQuery', () => {
  const cases = [
    'a=1&b=2',
    'a=1&a=2',
    'q=a%20b&r=c+d',
    'x&y=&=z',
    '&&a=1&&',
    'k%3D=v%26w',
    'bad=%E0%A4%A&ok=1',
    'bad2=%zz',
    '__proto__=p&constructor=c',
    'emoji=%F0%9F%98%80',
    '',
  ];
  it.each(cases)('decodes %j like URLSearchParams (first value wins)', (raw) => {
    const expected: Record<string, string> = Object.create(null);
    for (const [k, v] of new URLSearchParams(raw)) if (!(k in expected)) expected[k] = v;
    const got: Record<string, string> = Object.create(null);
    parseQuery(raw, got);
    expect({ ...got }).toEqual({ ...expected });
  });
});

describe('MockRequestView.queryParam and header', () => {
  // node's headers and the raw lines they were parsed from
  const view = (rawQuery: string, headers: Record<string, string | string[]> = {}) =>
    new MockRequestView(
      'GET',
      '/x',
      rawQuery,
      headers,
      Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).flatMap((x) => [k, x])),
    );

  it('finds one parameter exactly as the parsed query has it, for any query', () => {
    const chars = fc.constantFrom('a', 'b', 'ab', '=', '&', '%20', '+', '%zz', '__proto__', 'é', '');
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 12 }),
        fc.constantFrom('a', 'b', 'ab', '', '__proto__', 'c'),
        (parts, name) => {
          const raw = parts.join('');
          const parsed: Record<string, string> = Object.create(null);
          parseQuery(raw, parsed);
          expect(view(raw).queryParam(name)).toBe(Object.hasOwn(parsed, name) ? parsed[name] : undefined);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads one header as the flat headers have it, and nothing from the prototype', () => {
    const v = view('', { 'x-tier': 'vip', 'set-cookie': ['a=1', 'b=2'] });
    expect(v.header('x-tier')).toBe('vip');
    expect(v.header('set-cookie')).toBe('a=1, b=2');
    expect(v.header('constructor')).toBeUndefined();
    expect(v.header('missing')).toBeUndefined();
    expect(v.headers['set-cookie']).toBe(v.header('set-cookie'));
    // once all headers were flattened, one is read from them
    expect(v.header('x-tier')).toBe('vip');
    expect(v.header('constructor')).toBeUndefined();
  });
});

describe('headersFromRaw', () => {
  // names node treats differently (kept once, joined with '; ', kept as an array, joined with ', '), in two cases
  const NAMES = ['X-Tier', 'x-tier', 'Cookie', 'cookie', 'Set-Cookie', 'User-Agent', 'user-agent', 'Authorization'];

  it('flattens raw header lines as node itself flattens them into req.headers', async () => {
    // a real node server parses each raw request; its req.headers is the reference
    let take: (req: http.IncomingMessage) => void = () => {};
    const server = http.createServer((req, res) => {
      take(req);
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const parsed = (lines: [string, string][]) =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        take = resolve;
        const sock = net.connect(port, '127.0.0.1', () => {
          const head = lines.map(([k, v]) => `${k}: ${v}\r\n`).join('');
          sock.end(`GET / HTTP/1.1\r\nHost: t\r\n${head}Connection: close\r\n\r\n`);
        });
        sock.on('error', reject);
        sock.resume();
      });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom('a', 'b c', '1', 'x=y')), {
            maxLength: 8,
          }),
          async (lines) => {
            const req = await parsed(lines);
            const flat = headersFromRaw(req.rawHeaders);
            for (const name of [...NAMES, 'host', 'connection', 'missing']) {
              const lower = name.toLowerCase();
              const v = req.headers[lower];
              const want = Array.isArray(v) ? v.join(', ') : v;
              expect(flat[lower]).toBe(want);
            }
          },
        ),
        { numRuns: 150 },
      );
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
