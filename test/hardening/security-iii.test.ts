/**
 * Security III (issue 34): the red team's attacks that needed no more than an anonymous mock request
 * or a read key, each over HTTP against the real server, bounded and on loopback only. The table in
 * SECURITY.md names the test of each attack. The spellings of the admin and key checks are in
 * test/hardening/spellings.test.ts; record mode, redaction and log streams in security-iii-io.test.ts;
 * collections, the login limiter and import caps in security-iii-state.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectError } from '../helpers/expect.js';
import { request, startTestServer, type TestServer } from '../helpers/server.js';

/** A regex of counted repetitions: 194 characters, 32,000 compiled instructions. */
const REGEX_BOMB = `${'[^x]{0,1000}'.repeat(16)}d`;
/** Text on which an NFA simulation of REGEX_BOMB does its whole work (a 'd' only at the end). */
const abcText = (n: number) => {
  let s = '';
  let seed = 1;
  for (let i = 0; i < n - 1; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s += 'abc'[seed % 3];
  }
  return `${s}d`;
};

/** The most the main thread was held while `work` ran, sampled every 10 ms. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return worst;
}

describe('Security III: no unbounded work', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  test('attack 6: a regex too large to match fast is a 400 at save (and one over 512 characters)', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/re' });
    const cond = (value: string) => ({ conditions: [{ target: 'body', operator: 'matches_regex', value }] });
    const r = await c.api(
      'POST',
      `/api/projects/${f.pid}/endpoints/${f.eid}/rules`,
      { name: 'bomb', ...cond(REGEX_BOMB) },
      f.token,
    );
    expectError(r, 400, 'validation_failed');
    expect(r.json.error.details[0].path).toBe('/conditions/0/value');
    expect(r.json.error.details[0].message).toMatch(/too large to match fast/);
    const long = await c.api(
      'POST',
      `/api/projects/${f.pid}/endpoints/${f.eid}/rules`,
      { name: 'long', ...cond('a'.repeat(513)) },
      f.token,
    );
    expectError(long, 400, 'validation_failed');
    expect(long.json.error.details[0].message).toMatch(/512 characters/);
    // ordinary patterns are fine, and match
    await c.rule(f.token, f.pid, f.eid, {
      ...cond('^\\{"id":[0-9]{1,10}\\}$'),
      response: { steps: [{ statusCode: 201 }] },
    });
    expect((await c.mock(f.pid, 'POST', '/re', { body: '{"id":42}' })).status).toBe(201);
  });

  test('attack 6b: rules full of regexes at the size limit against a 64 KiB body hold the thread < 100 ms', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/heavy' });
    // near the limit of compiled size, the shape whose every instruction stays alive on this text
    const heavy = `a${'[^x]{0,40}a'.repeat(11)}[^x]{0,40}d`;
    for (let i = 0; i < 3; i++)
      await c.rule(f.token, f.pid, f.eid, {
        name: `heavy ${i}`,
        conditions: Array.from({ length: 5 }, (_, k) => ({
          target: 'body',
          operator: 'matches_regex',
          value: `${heavy}${'z'.repeat(k)}`,
        })),
        response: { steps: [{ statusCode: 299 }] },
      });
    const body = abcText(64 * 1024);
    const stall = await longestStall(async () => {
      for (let i = 0; i < 3; i++) {
        const r = await c.mock(f.pid, 'POST', '/heavy', { body });
        expect([200, 299]).toContain(r.status);
      }
    });
    expect(stall).toBeLessThan(100);
  });

  test('attack 6c: verification with a heavy pathPattern is a 400; one at the limit over long paths never stalls', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/*' });
    for (let i = 0; i < 3; i++) await c.mock(f.pid, 'GET', `/${abcText(2048)}`);
    const bomb = await c.api(
      'POST',
      `/api/projects/${f.pid}/requests/count`,
      { pathPattern: `.*${REGEX_BOMB}` },
      f.token,
    );
    expectError(bomb, 400, 'validation_failed');
    expect(bomb.json.error.details[0].path).toBe('/pathPattern');
    const heavy = `/a${'[^x]{0,40}a'.repeat(11)}[^x]{0,40}d`;
    const stall = await longestStall(async () => {
      const r = await c.api('POST', `/api/projects/${f.pid}/requests/count`, { pathPattern: heavy }, f.token);
      expect(r.status).toBe(200);
    });
    expect(stall).toBeLessThan(100);
  });

  test('attack 6d: an imported WireMock matcher too large to match fast imports its rule inactive, with a warning', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const doc = {
      mappings: [
        {
          request: { method: 'POST', urlPath: '/w', bodyPatterns: [{ matches: REGEX_BOMB }] },
          response: { status: 500 },
        },
        { request: { method: 'POST', urlPath: '/w' }, response: { status: 200, body: 'fine' } },
      ],
    };
    const r = await c.api('POST', `/api/projects/${p.id}/import/wiremock`, doc, u.token);
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.json.warnings)).toMatch(/rule imported inactive.*too large to match fast/);
    const endpoints = (await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json;
    const e = (await c.api('GET', `/api/projects/${p.id}/endpoints/${endpoints[0].id}`, undefined, u.token)).json;
    const bombRule = e.rules.find((x: { conditions: { value?: string }[] }) =>
      x.conditions.some((k) => (k.value ?? '').includes('[^x]{0,1000}')),
    );
    expect(bombRule.active).toBe(false);
    // switching it on as it is is refused; the mock answers without it
    const on = await c.api(
      'PATCH',
      `/api/projects/${p.id}/endpoints/${e.id}/rules/${bombRule.id}`,
      { active: true },
      u.token,
    );
    expectError(on, 400, 'validation_failed');
    const started = performance.now();
    const answer = await request(`${s.running.url}/m/${p.id}/w`, { method: 'POST', body: abcText(3000) });
    expect(answer.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
