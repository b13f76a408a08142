/**
 * One path for every check (docs/security.md, "Security III"): every route of the OpenAPI document,
 * spelled every way a client can spell it — absolute form, each letter percent-encoded, `//`, `/./`,
 * `x/../`, a trailing `/`, upper case — is called with no token, another user's token, a read key and
 * a key limited to another project. A spelling never gets more than the plain spelling gets.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';

interface Raw {
  status: number;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** The request target is sent exactly as given (node does not normalise `path`). */
function raw(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path: target, agent, headers: { ...headers, host: `127.0.0.1:${port}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${method} ${target}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Every way of writing `path` that means the same resource. */
function spellings(path: string, port: number): string[] {
  const out = new Set<string>();
  out.add(`http://127.0.0.1:${port}${path}`);
  out.add(`http://mockyard.invalid${path}`);
  out.add(`${path}/`);
  out.add(path.replace('/', '//'));
  out.add(path.replaceAll('/', '//'));
  out.add(path.replace(/^\/api\//, '/api/./'));
  out.add(path.replace(/^\/api\//, '/api/x/../'));
  out.add(path.replace(/^\/api\//, '/zz/../api/'));
  out.add(path.replace(/^\/api\//, '/api/%2e/'));
  out.add(path.toUpperCase());
  out.add(path.replace(/^\/api/, '/API'));
  for (let i = 0; i < path.length; i++) {
    const ch = path[i];
    if (!/[a-z]/i.test(ch)) continue;
    const hex = ch.charCodeAt(0).toString(16);
    out.add(`${path.slice(0, i)}%${hex}${path.slice(i + 1)}`);
    out.add(`${path.slice(0, i)}%${hex.toUpperCase()}${path.slice(i + 1)}`);
  }
  out.delete(path);
  return [...out];
}

describe('every route, every spelling, every caller', () => {
  let s: TestServer;
  let bare: TestServer;
  const ids: Record<string, string> = {};
  const callers: Record<string, string | null> = {};
  // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read freely
  let doc: any;

  beforeAll(async () => {
    s = await startTestServer('sqlite');
    bare = await startTestServer('sqlite', { adminToken: null });
    const c = s.client;
    const owner = await c.user();
    const other = await c.user();
    const p1 = await c.project(owner.token, 'mine');
    const p2 = await c.project(owner.token, 'not the key’s');
    const e2 = await c.endpoint(owner.token, p2.id, { method: 'GET', path: '/x' });
    const r2 = await c.rule(owner.token, p2.id, e2.id, { response: { steps: [{ statusCode: 200 }] } });
    const col = await c.api('POST', `/api/projects/${p2.id}/collections`, { name: 'things' }, owner.token);
    const readKey = await c.api('POST', '/api/auth/keys', { name: 'r', scope: 'read' }, owner.token);
    const limited = await c.api(
      'POST',
      '/api/auth/keys',
      { name: 'w', scope: 'write', projectIds: [p1.id] },
      owner.token,
    );
    const spare = await c.api('POST', '/api/auth/keys', { name: 'spare', scope: 'write' }, owner.token);
    Object.assign(ids, {
      projectId: p2.id,
      id: p2.id,
      endpointId: e2.id,
      ruleId: r2.id,
      name: col.json?.name ?? 'things',
      userId: owner.id,
      keyId: spare.json.id,
      session: 's1',
      itemId: 'nope',
    });
    Object.assign(callers, {
      none: null,
      other: other.token,
      read: readKey.json.key,
      limited: limited.json.key,
      ownerForAdmin: owner.token,
    });
    doc = (await c.api('GET', '/api/openapi.json')).json;
  });
  afterAll(async () => {
    agent.destroy();
    await s?.close();
    await bare?.close();
  });

  const fill = (route: string) =>
    route.replace(/\{(\w+)\}/g, (_m, name: string) => {
      if (name === 'id' && route.startsWith('/api/auth/keys')) return ids.keyId;
      if (name === 'id' && route.includes('/endpoints/')) return ids.endpointId;
      return ids[name] ?? 'unknown';
    });

  /** What the plain spelling must answer this caller: a denial (401/403/404) or null (allowed). */
  function denial(caller: string, method: string, route: string): number[] | null {
    // the MCP transport is open to read keys (they are offered the read tools only: test/agents/mcp.test.ts)
    const reading =
      method === 'GET' ||
      method === 'HEAD' ||
      /\/requests\/(count|find)$/.test(route) ||
      (route === '/mcp' && method === 'POST');
    if (route.startsWith('/api/admin')) return [401];
    if (caller === 'none') return [401];
    if (/^\/api\/auth\/(keys|password|logout)/.test(route))
      return caller === 'read' || caller === 'limited' ? [403] : null;
    if (route === '/api/auth/me') return null;
    if (caller === 'read' && !reading) return [403];
    if (caller === 'limited' && (route === '/api/projects/import' || (route === '/api/projects' && method !== 'GET')))
      return [403];
    if (caller === 'limited' && route.startsWith('/api/projects/{')) return [404];
    // another tenant: the body is validated before the project is looked up (a 400 says nothing
    // of the project), then the project is a 404
    if (caller === 'other' && route.startsWith('/api/projects/{'))
      return method === 'GET' || method === 'DELETE' ? [404] : [400, 404];
    return null;
  }

  it('no spelling of any route gives a caller more than the plain spelling does', async () => {
    const port = s.running.port;
    const failures: string[] = [];
    let checked = 0;
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>);
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.map(([r]) => r)).toContain('/api/admin/users/{userId}');
    for (const [route, ops] of routes) {
      for (const m of Object.keys(ops)) {
        const method = m.toUpperCase();
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        const security = (ops[m] as { security?: unknown[] }).security;
        if (Array.isArray(security) && security.length === 0) continue; // public: register, login
        const path = fill(route);
        // a body no route accepts: a caller that gets past the guard gets a 400, never a change
        const body = method === 'GET' || method === 'DELETE' ? undefined : '{"__never_a_field__":1}';
        for (const [caller, token] of Object.entries(callers)) {
          if (caller === 'ownerForAdmin' && !route.startsWith('/api/admin')) continue;
          const want = denial(caller, method, route);
          if (want === null) continue;
          const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
          if (body) headers['content-type'] = 'application/json';
          const plain = await raw(port, method, path, headers, body);
          if (!want.includes(plain.status))
            failures.push(`${caller} ${method} ${path} → ${plain.status} ${plain.body}`);
          for (const spelled of spellings(path, port)) {
            const r = await raw(port, method, spelled, headers, body);
            checked++;
            // a spelling the router does not know is a 404 (or the guard's 401); never a success
            // and never a 400, which would mean the guard was passed and the body was read
            if (!(r.status === 401 || r.status === 403 || r.status === 404 || (want.includes(400) && r.status === 400)))
              failures.push(`${caller} ${method} ${spelled} → ${r.status} ${r.body.slice(0, 120)}`);
          }
        }
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });

  it('the admin API needs the admin token in every spelling, and does not exist without one', async () => {
    const body = JSON.stringify({ plan: 'business' });
    const headers = { 'content-type': 'application/json' };
    const u = await s.client.user();
    const path = `/api/admin/users/${u.id}`;
    for (const server of [s, bare]) {
      const port = server.running.port;
      for (const target of [path, ...spellings(path, port)]) {
        for (const token of [null, u.token, ADMIN_TOKEN.slice(0, -1)]) {
          const r = await raw(
            port,
            'PATCH',
            target,
            token ? { ...headers, authorization: `Bearer ${token}` } : headers,
            body,
          );
          expect([401, 404], `${target} ${token}`).toContain(r.status);
          if (server === bare) expect(r.status, target).toBe(404);
        }
      }
    }
    expect((await s.client.api('GET', '/api/auth/me', undefined, u.token)).json.plan).toBe('free');
    // the real admin token works in the plain and the absolute form
    const ok = await raw(
      s.running.port,
      'PATCH',
      `http://127.0.0.1:${s.running.port}${path}`,
      {
        ...headers,
        authorization: `Bearer ${ADMIN_TOKEN}`,
      },
      body,
    );
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).plan).toBe('business');
  });

  it('a project-limited key cannot reach keys, other projects or project creation through escapes', async () => {
    const port = s.running.port;
    const key = callers.limited as string;
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const mint = await raw(port, 'POST', '/api/auth/%6beys', auth, JSON.stringify({ name: 'x', scope: 'write' }));
    expect(mint.status).toBe(403);
    const read = await raw(port, 'GET', `/api/%70rojects/${ids.projectId}`, auth);
    expect(read.status).toBe(404);
    const create = await raw(port, 'POST', '/api/%70rojects', auth, JSON.stringify({ name: 'x' }));
    expect(create.status).toBe(403);
    const listed = await s.client.api('GET', '/api/auth/keys', undefined, callers.ownerForAdmin);
    expect(listed.json.map((k: { name: string }) => k.name).sort()).toEqual(['r', 'spare', 'w']);
  });

  it('two Host lines are a 400; an absolute-form target is routed by its path, not to the dashboard', async () => {
    const port = s.running.port;
    const net = await import('node:net');
    const answer = (text: string) =>
      new Promise<string>((resolve) => {
        const sock = net.connect(port, '127.0.0.1', () => sock.end(text));
        let got = '';
        sock.on('data', (c) => {
          got += c;
        });
        sock.on('close', () => resolve(got));
      });
    const two = await answer('GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n');
    expect(two).toMatch(/^HTTP\/1\.1 400 /);
    expect(two).toContain('"validation_failed"');
    const u = await s.client.user();
    const p = await s.client.project(u.token);
    await s.client.endpoint(u.token, p.id, { method: 'GET', path: '/hello', responseBody: 'mocked' });
    const abs = await raw(port, 'GET', `http://127.0.0.1:${port}/m/${p.id}/hello`, {});
    expect(abs).toEqual({ status: 200, body: 'mocked' });
    const dotted = await raw(port, 'GET', `/m/${p.id}/x/../hello`, {});
    expect(dotted).toEqual({ status: 200, body: 'mocked' });
  });
});
