/**
 * Plan limits on a self-hosted service (docs/limits.md): MOCKYARD_DEFAULT_PLAN sets the plan of new
 * accounts (free by default, or pro, business, unlimited); an import cut by a plan names the plan
 * that lifts it; `serve --file` has no plan limits.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { serveFiles } from '../../src/files/serve.js';
import { ADMIN_TOKEN, request, startTestServer, type TestServer } from '../helpers/server.js';

const FIVE_STUBS = {
  mappings: Array.from({ length: 5 }, (_, i) => ({
    request: { method: 'GET', urlPath: '/same', queryParameters: { v: { equalTo: String(i) } } },
    response: { status: 200, body: `stub ${i}` },
  })),
};

describe('plans', () => {
  it('MOCKYARD_DEFAULT_PLAN: free by default; pro, business, unlimited; anything else is refused', () => {
    expect(loadConfig({}).defaultPlan).toBe('free');
    expect(loadConfig({ MOCKYARD_DEFAULT_PLAN: 'Unlimited' }).defaultPlan).toBe('unlimited');
    expect(() => loadConfig({ MOCKYARD_DEFAULT_PLAN: 'gold' })).toThrow(/MOCKYARD_DEFAULT_PLAN must be one of/);
  });

  describe('a service with MOCKYARD_DEFAULT_PLAN=unlimited', () => {
    let s: TestServer;
    let free: TestServer;
    beforeAll(async () => {
      s = await startTestServer('sqlite', { defaultPlan: 'unlimited' });
      free = await startTestServer('sqlite');
    });
    afterAll(async () => {
      await s?.close();
      await free?.close();
    });

    it('new accounts get the plan, and an import keeps every stub', async () => {
      const u = await s.client.user();
      expect((await s.client.api('GET', '/api/auth/me', undefined, u.token)).json.plan).toBe('unlimited');
      const p = await s.client.project(u.token);
      const r = await s.client.api('POST', `/api/projects/${p.id}/import/wiremock`, FIVE_STUBS, u.token);
      expect(r.status).toBe(200);
      expect(r.json.warnings).toEqual([]);
      expect((await s.client.mock(p.id, 'GET', '/same', { query: 'v=4' })).text).toBe('stub 4');
    });

    it('on the free plan the cut names the plan that lifts it', async () => {
      const u = await free.client.user();
      expect((await free.client.api('GET', '/api/auth/me', undefined, u.token)).json.plan).toBe('free');
      const p = await free.client.project(u.token);
      const r = await free.client.api('POST', `/api/projects/${p.id}/import/wiremock`, FIVE_STUBS, u.token);
      expect(JSON.stringify(r.json.warnings)).toMatch(/the plan allows 3 rules per endpoint.*the pro plan allows 15/);
    });
  });

  it('serve --file has no plan limits', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-plans-'));
    const file = path.join(dir, 'stubs.json');
    const many = {
      mappings: Array.from({ length: 40 }, (_, i) => ({
        request: { method: 'GET', urlPath: '/same', queryParameters: { v: { equalTo: String(i) } } },
        response: { status: 200, body: `stub ${i}` },
      })),
    };
    fs.writeFileSync(file, JSON.stringify(many));
    const served = await serveFiles({
      file,
      port: 0,
      host: '127.0.0.1',
      env: { MOCKYARD_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' },
      note: () => {},
    });
    try {
      expect((await request(`${served.running.url}/same?v=39`)).text).toBe('stub 39');
      const me = await request(`${served.running.url}/api/auth/me`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(me.json.plan).toBe('unlimited');
    } finally {
      await served.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
