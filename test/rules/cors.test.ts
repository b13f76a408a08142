/**
 * An answer carries each header once: a step's own `Access-Control-Allow-Origin`, in any spelling,
 * replaces the default `*` instead of being sent beside it (browsers refuse `*, *`), and a step's
 * `Content-Length` never doubles the one the server computes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('CORS headers of mock answers', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  const lines = (head: string, name: string) =>
    head.split('\r\n').filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));

  it('a step’s own Access-Control-Allow-Origin (any spelling) is the only one sent', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/cors' });
    for (const [i, name] of [
      'Access-Control-Allow-Origin',
      'access-control-allow-origin',
      'ACCESS-CONTROL-ALLOW-ORIGIN',
    ].entries()) {
      await c.rule(f.token, f.pid, f.eid, {
        name: `spelling ${i}`,
        priority: i,
        conditions: [{ target: 'query', key: 'v', operator: 'equals', value: String(i) }],
        response: {
          steps: [
            { statusCode: 200, body: 'ok', headers: { [name]: 'http://localhost:3000', 'Content-Length': '999' } },
          ],
        },
      });
      const { text } = await exchange(s.running.port, `GET /m/${f.pid}/cors?v=${i} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(lines(text, 'access-control-allow-origin'), name).toEqual([
        expect.stringMatching(/^access-control-allow-origin: http:\/\/localhost:3000$/i),
      ]);
      expect(lines(text, 'content-length')).toEqual([expect.stringMatching(/^content-length: 2$/i)]);
    }
    // without one of its own, the answer has the default, once
    const plain = await exchange(s.running.port, `GET /m/${f.pid}/cors HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(lines(plain.text, 'access-control-allow-origin')).toEqual([
      expect.stringMatching(/^access-control-allow-origin: \*$/i),
    ]);
  });
});
