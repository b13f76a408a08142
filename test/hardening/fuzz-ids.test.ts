/**
 * Fuzzing every management route with odd ids, escapes and query strings (docs/api.md "Conventions",
 * SECURITY.md): 404/400/401, never a 5xx, every error in the contract's shape, and nothing changed —
 * a delete of the caller's own records, however spelled, is a real request and left out.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodeChunked, expectErrorShape, rawRequest, treeOf } from './support.js';

for (const dialect of DIALECTS) {
  describe(`management API odd ids (${dialect})`, () => {
    let srv: TestServer;
    let token = '';
    let uid = '';
    let pid = '';
    let eid = '';
    let rid = '';
    beforeAll(async () => {
      srv = await startTestServer(dialect);
      const c = srv.client;
      const u = await c.user();
      token = u.token;
      uid = u.id;
      pid = (await c.project(token, 'fuzz')).id;
      eid = (await c.endpoint(token, pid, { method: 'GET', path: '/fixed' })).id;
      rid = (await c.rule(token, pid, eid, { name: 'fixed', response: { steps: [{ statusCode: 201 }] } })).id;
    });
    afterAll(async () => {
      await srv?.close();
    });
    const snapshot = () => treeOf(srv.running.store, uid);

    test('odd ids, escapes and query strings on every route: 404/400/401, never a 5xx, nothing changed', async () => {
      const id = fc.oneof(
        fc.constantFrom(pid, eid, rid),
        fc.constantFrom(
          '..',
          '.',
          '%2e%2e',
          '%',
          '%zz',
          '%00',
          '%C0%AF',
          '%E2%80%AE',
          '*',
          ':id',
          '%2F',
          'null',
          '0',
          '-1',
        ),
        fc.string({ maxLength: 20 }).map(encodeURIComponent),
        fc.string({ unit: 'binary', maxLength: 10 }).map((s) => encodeURIComponent(s).replaceAll('%', '%25')),
        fc.constant('x'.repeat(3000)),
      );
      const query = fc.oneof(
        fc.constant(''),
        fc.constantFrom(
          '?limit=0',
          '?limit=-1',
          '?limit=abc',
          '?limit=1e3',
          '?limit=99999999999999999999',
          '?limit=%zz',
        ),
        fc.constantFrom(
          '?session=%zz',
          `?session=${'s'.repeat(300)}`,
          '?limit=2&limit=3',
          '?session[]=1',
          '?__proto__=1',
        ),
      );
      const templates = [
        'GET /api/projects/{a}',
        'DELETE /api/projects/{a}',
        'GET /api/projects/{a}/endpoints',
        'GET /api/projects/{a}/endpoints/{b}',
        'DELETE /api/projects/{a}/endpoints/{b}',
        'GET /api/projects/{a}/endpoints/{b}/storage',
        'DELETE /api/projects/{a}/endpoints/{b}/storage',
        'GET /api/projects/{a}/endpoints/{b}/sessions',
        'GET /api/projects/{a}/endpoints/{b}/rules',
        'GET /api/projects/{a}/endpoints/{b}/rules/{c}',
        'DELETE /api/projects/{a}/endpoints/{b}/rules/{c}',
        'POST /api/projects/{a}/endpoints/{b}/rules/{c}/reset',
        'GET /api/projects/{a}/requests',
      ];
      const port = srv.running.port;
      const before = await snapshot();
      const ep = `/api/projects/${pid}/endpoints/${eid}`;
      const mine = new Set([
        `/api/projects/${pid}`,
        `/api/projects/${pid}/storage`,
        ep,
        `${ep}/storage`,
        `${ep}/rules/${rid}`,
        `${ep}/rules/${rid}/reset`,
      ]);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...templates), id, id, id, query, async (tpl, a, b, cc, q) => {
          const [method, pattern] = tpl.split(' ');
          const path = pattern.replace('{a}', a).replace('{b}', b).replace('{c}', cc) + q;
          // the caller's own ids in the right places are real requests: only deletes of them change state —
          // spelled directly or through dot segments, which the server resolves (`…/rules/..` is the endpoint,
          // `…/endpoints/../storage` the project's storage) and whose trailing slash it ignores
          const real = a === pid && (!pattern.includes('{b}') || b === eid) && (!pattern.includes('{c}') || cc === rid);
          if (real && (method === 'DELETE' || pattern.endsWith('/reset'))) return;
          const resolved = new URL(path.split('?')[0], 'http://x').pathname.replace(/(.)\/+$/, '$1');
          if ((method === 'DELETE' || pattern.endsWith('/reset')) && mine.has(resolved)) return;
          const ans = await rawRequest(
            port,
            `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
          );
          const ctx = `${method} ${path.slice(0, 200)} → ${ans.status} ${ans.body.slice(0, 200)}`;
          expect(ans.status, ctx).not.toBeNull();
          expect(ans.status as number, ctx).toBeLessThan(500);
          const headers = new Headers();
          for (const line of ans.head.split('\r\n').slice(1)) {
            const i = line.indexOf(':');
            if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
          }
          // node's own parser rejects some bytes before any route, with an empty 400
          const parserReject = ans.status === 400 && !headers.has('content-type') && ans.body === '';
          if ((ans.status as number) >= 400 && !parserReject) {
            expectErrorShape({ status: ans.status as number, text: decodeChunked(ans), headers });
          }
          // a delete that answered 204 changed something: named here, so a failure says which request
          expect(method === 'DELETE' && ans.status === 204, `a delete succeeded: ${ctx}`).toBe(false);
        }),
        { numRuns: 150 },
      );
      expect(await snapshot()).toBe(before);
    });
  });
}
