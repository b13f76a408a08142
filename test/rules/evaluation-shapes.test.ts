/**
 * The engine evaluates an endpoint with actions at once when it loads nothing first, or after a step
 * function has read what its rules read (src/runtime/engine.ts, acting.ts). The same rules on two
 * endpoints, one of each (the second's default answer reads `{{endpoint.k}}`), must answer, store
 * and log alike: an action that fails after a wait with onError stop (later actions, of every rule,
 * skipped), an applied webhook answer, every action type (both storage scopes, a delete, a broadcast)
 * before a counted sequence, rules that do not match (three rules: the plan's limit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';

describe.each(DIALECTS)('the two shapes of an evaluation with actions (%s)', (dialect) => {
  let s: TestServer;
  let receiver: Receiver;
  let canary: Receiver;
  let refused: number;
  beforeAll(async () => {
    canary = await startReceiver(0);
    receiver = await startReceiver(canary.port);
    refused = await freePort(); // nothing listens there
    s = await startTestServer(dialect, {
      allowTargets: [`127.0.0.1:${receiver.port}`, `127.0.0.1:${refused}`],
    });
  });
  afterAll(async () => {
    await s?.close();
    await receiver?.close();
    await canary?.close();
  });

  it('answer, store and log alike, request by request', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const rules = [
      {
        name: 'fails',
        conditions: [{ target: 'query', key: 'case', operator: 'equals', value: 'fail' }],
        actions: [
          { type: 'http_request', url: `http://127.0.0.1:${refused}/x`, onError: 'stop' },
          { type: 'store_variable', name: 'skipped', value: 'ran' },
        ],
      },
      {
        name: 'applies',
        conditions: [{ target: 'query', key: 'case', operator: 'equals', value: 'apply' }],
        actions: [
          { type: 'store_variable', name: 'a', value: '1' },
          { type: 'http_request', url: `http://127.0.0.1:${receiver.port}/answer`, applyResponse: true },
          { type: 'store_variable', name: 'after', value: 'ran' },
        ],
      },
      {
        name: 'counts',
        actions: [
          { type: 'set_variable', name: 'v', value: '{{request.query.case}}' },
          { type: 'store_variable', name: 'n', value: '{{vars.v}}' },
          { type: 'store_variable', scope: 'project', name: 'p', value: '{{vars.v}}' },
          { type: 'delete_variable', name: 'a' },
          { type: 'broadcast', channel: 'default', body: '{{vars.v}}' },
        ],
        response: {
          mode: 'loop',
          steps: [
            { statusCode: 200, body: 'one {{vars.v}}' },
            { statusCode: 201, body: 'two {{vars.v}}' },
          ],
        },
      },
    ];
    const paths = ['/acts', '/steps'];
    for (const [i, path] of paths.entries()) {
      const e = await c.endpoint(u.token, p.id, {
        method: 'GET',
        path,
        responseBody: i === 0 ? 'default' : 'default {{endpoint.k}}',
      });
      for (const [at, rule] of rules.entries()) await c.rule(u.token, p.id, e.id, { ...rule, priority: at });
    }
    const cases = ['fail', 'apply', 'x', 'y', 'z'];
    const seen: Record<string, unknown[]> = {};
    for (const path of paths) {
      seen[path] = [];
      // each shape in a mock session of its own: the project storage is shared by the two endpoints
      const session = path.slice(1);
      for (const q of cases) {
        const r = await c.mock(p.id, 'GET', path, {
          query: `case=${q}`,
          headers: { 'x-mockyard-session': session },
        });
        const log = await c.api('GET', `/api/projects/${p.id}/requests?limit=1`, undefined, u.token);
        const [entry] = log.json;
        const rulesSeen = entry.rules.map((t: { name: string; matched: boolean }) => `${t.name}:${t.matched}`);
        seen[path].push([r.status, r.text, entry.actions, rulesSeen]);
      }
      const eps = (await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json;
      const ep = eps.find((x: { path: string }) => x.path === path);
      const storage = await c.api(
        'GET',
        `/api/projects/${p.id}/endpoints/${ep.id}/storage?session=${session}`,
        undefined,
        u.token,
      );
      const project = await c.api('GET', `/api/projects/${p.id}/storage?session=${session}`, undefined, u.token);
      seen[path].push(storage.json, project.json);
    }
    const skipped = (type: string) => ({ type, ok: false, error: expect.stringMatching(/^skipped: an earlier/) });
    const ok = (type: string) => ({ type, ok: true });
    const applies = ['fails:false', 'applies:true'];
    const counts = ['fails:false', 'applies:false', 'counts:true'];
    const counted = ['set_variable', 'store_variable', 'store_variable', 'delete_variable', 'broadcast'];
    expect(seen['/acts']).toEqual([
      [
        200,
        'one ',
        [
          { type: 'http_request', ok: false, error: expect.stringMatching(/refused/) },
          skipped('store_variable'),
          ...counted.map(skipped),
        ],
        ['fails:true', 'applies:false', 'counts:true'],
      ],
      [207, 'a,b', [ok('store_variable'), ok('http_request')], applies],
      [201, 'two x', counted.map(ok), counts],
      [200, 'one y', counted.map(ok), counts],
      [201, 'two z', counted.map(ok), counts],
      { n: 'z' }, // `a` stored by the applied request, deleted by the next
      { p: 'z' },
    ]);
    expect(seen['/steps']).toEqual(seen['/acts']);
  });
});
