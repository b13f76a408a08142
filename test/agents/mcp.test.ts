/**
 * The MCP server (docs/agents.md) driven by the official SDK's client over both transports —
 * Streamable HTTP at /mcp and stdio through `mockyard mcp` — against real state, checked through the
 * REST API: tool listing, every tool, scopes (a read key sees read tools only), tenants, bad input.
 */

import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PETSTORE } from '../contract/fixture.js';
import { RICH } from '../fixtures/rich-export.js';
import { UUID7 } from '../helpers/expect.js';
import { ADMIN_TOKEN, ROOT, startTestServer, type TestServer } from '../helpers/server.js';

type Json = Record<string, unknown>;

async function httpClient(base: string, token: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function stdioClient(base: string, token: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'bin', 'mockyard.mjs'), 'mcp'],
      env: { ...env, MOCKYARD_URL: base, MOCKYARD_TOKEN: token },
      stderr: 'pipe',
    }),
  );
  return client;
}

const call = async (c: Client, name: string, args: Json = {}) => {
  const r = (await c.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: Json;
    content: { type: string; text: string }[];
  };
  return r;
};

const ok = async (c: Client, name: string, args: Json = {}) => {
  const r = await call(c, name, args);
  expect(r.isError, `${name}: ${r.content[0]?.text}`).toBeFalsy();
  return r.structuredContent as Json;
};

const ALL_TOOLS = [
  'count_requests',
  'create_endpoint',
  'create_project',
  'create_rule',
  'delete_endpoint',
  'delete_rule',
  'explain_request',
  'find_requests',
  'get_collection_items',
  'get_storage',
  'import_mocks',
  'lint_contract',
  'list_collections',
  'list_endpoints',
  'list_projects',
  'list_rules',
  'render_template',
  'reset_session',
  'send_test_request',
  'set_contract',
  'update_endpoint',
  'update_rule',
];

describe('MCP server', () => {
  let s: TestServer;
  let token: string;
  let me: string;
  let readKey: string;
  const clients: Client[] = [];
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    const u = await s.client.user();
    token = u.token;
    me = u.id;
    readKey = (await s.client.api('POST', '/api/auth/keys', { name: 'agent', scope: 'read' }, token)).json.key;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await s?.close();
  });

  for (const transport of ['http', 'stdio'] as const) {
    describe(`over ${transport}`, () => {
      const connect = async (t: string) => {
        const c = transport === 'http' ? await httpClient(s.client.base, t) : await stdioClient(s.client.base, t);
        clients.push(c);
        return c;
      };

      it('lists every tool with a JSON Schema input; a read key gets the read tools only', async () => {
        const c = await connect(token);
        const { tools } = await c.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
        for (const t of tools) expect(t.inputSchema.type).toBe('object');
        const create = tools.find((t) => t.name === 'create_rule');
        expect(Object.keys(create?.inputSchema.properties ?? {})).toEqual(
          expect.arrayContaining(['projectId', 'endpointId', 'name', 'conditions', 'response', 'actions']),
        );
        const reader = await connect(readKey);
        const readTools = (await reader.listTools()).tools.map((t) => t.name);
        expect(readTools).toContain('explain_request');
        expect(readTools).not.toContain('create_project');
        const refused = await call(reader, 'create_project', { name: 'no' });
        expect(refused.isError).toBe(true);
      });

      it('builds a mock, drives it and explains a miss, all checked through the REST API', async () => {
        const c = await connect(token);
        const project = await ok(c, 'create_project', { name: `agent ${transport}` });
        const pid = project.id as string;
        const ep = await ok(c, 'create_endpoint', {
          projectId: pid,
          method: 'GET',
          path: '/users/:id',
          responseBody: '{"id":"{{request.params.id}}"}',
        });
        const rule = await ok(c, 'create_rule', {
          projectId: pid,
          endpointId: ep.id,
          name: 'VIP',
          conditions: [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' }],
          response: { mode: 'loop', steps: [{ statusCode: 200, body: 'vip' }] },
        });
        const rest = await s.client.api('GET', `/api/projects/${pid}/endpoints/${ep.id}`, undefined, token);
        expect(rest.json.rules.map((r: Json) => r.name)).toEqual(['VIP']);
        expect((await ok(c, 'list_projects')).items).toEqual(
          expect.arrayContaining([expect.objectContaining({ id: pid })]),
        );
        expect(((await ok(c, 'list_endpoints', { projectId: pid })).items as Json[]).map((e) => e.path)).toEqual([
          '/users/:id',
        ]);

        const sent = await ok(c, 'send_test_request', {
          projectId: pid,
          path: '/users/7',
          headers: { 'x-tier': 'gold' },
        });
        expect(sent.answer).toMatchObject({ status: 200, body: '{"id":"7"}' });
        const entry = sent.entry as Json;
        expect(entry).toMatchObject({ path: '/users/7', statusCode: 200, ruleId: null });
        const why = await ok(c, 'explain_request', { projectId: pid, requestId: entry.id });
        expect(why.rules).toEqual([
          expect.objectContaining({
            name: 'VIP',
            status: 'failed',
            failedCondition: 0,
            received: { known: true, value: 'gold' },
          }),
        ]);
        expect((why.sentences as string[]).join(' ')).toMatch(/header x-tier to equal "vip".*had "gold"/);

        const vip = await ok(c, 'send_test_request', {
          projectId: pid,
          path: '/users/8',
          headers: { 'x-tier': 'vip' },
        });
        expect(vip.answer).toMatchObject({ status: 200, body: 'vip' });
        expect((vip.entry as Json).ruleId).toBe(rule.id);

        // a miss on a near path: the endpoints it came close to, in words
        const miss = await ok(c, 'send_test_request', { projectId: pid, path: '/user/9' });
        expect((miss.answer as Json).status).toBe(404);
        const near = await ok(c, 'explain_request', { projectId: pid, requestId: (miss.entry as Json).id });
        expect(near.nearest).toEqual([expect.objectContaining({ method: 'GET', path: '/users/:id', distance: 1 })]);
        expect((near.sentences as string[]).join(' ')).toMatch(/Nearest: GET \/users\/:id — /);
        expect(await ok(c, 'count_requests', { projectId: pid, filter: { ruleId: rule.id } })).toEqual({ count: 1 });
        expect(
          ((await ok(c, 'find_requests', { projectId: pid, filter: { path: '/users/7' } })).items as Json[]).length,
        ).toBe(1);

        await ok(c, 'update_rule', { projectId: pid, endpointId: ep.id, ruleId: rule.id, active: false });
        expect(((await ok(c, 'list_rules', { projectId: pid, endpointId: ep.id })).items as Json[])[0].active).toBe(
          false,
        );
        await ok(c, 'update_endpoint', { projectId: pid, endpointId: ep.id, statusCode: 202 });
        expect((await s.client.mock(pid, 'GET', '/users/1')).status).toBe(202);
        await ok(c, 'delete_rule', { projectId: pid, endpointId: ep.id, ruleId: rule.id });
        await ok(c, 'delete_endpoint', { projectId: pid, endpointId: ep.id });
        expect((await s.client.api('GET', `/api/projects/${pid}/endpoints`, undefined, token)).json).toEqual([]);
      });

      it('imports, reads collections and storage, resets a session, renders a template', async () => {
        const c = await connect(token);
        const pid = (await ok(c, 'create_project', { name: `data ${transport}` })).id as string;
        const report = await ok(c, 'import_mocks', {
          projectId: pid,
          document: {
            mockyard: 1,
            project: { name: 'x' },
            endpoints: [
              {
                method: 'POST',
                path: '/items',
                data: { collection: 'items', operation: 'create' },
                rules: [
                  {
                    name: 'store',
                    conditions: [],
                    response: null,
                    actions: [{ type: 'store_variable', name: 'last', value: 'seen', scope: 'project' }],
                  },
                ],
              },
            ],
            // a seed item without an id gets one, as through the API's import
            collections: [{ name: 'items', seed: [{ id: 1 }, { note: 'no id' }] }],
          },
        });
        expect(report.format).toBe('mockyard');
        expect(((await ok(c, 'list_collections', { projectId: pid })).items as Json[]).map((x) => x.name)).toEqual([
          'items',
        ]);
        await ok(c, 'send_test_request', {
          projectId: pid,
          method: 'POST',
          path: '/items',
          headers: { 'content-type': 'application/json' },
          body: '{"id":2}',
          session: 's1',
        });
        const generated = { note: 'no id', id: expect.stringMatching(UUID7) };
        expect((await ok(c, 'get_collection_items', { projectId: pid, name: 'items', session: 's1' })).items).toEqual([
          { id: 1 },
          generated,
          { id: 2 },
        ]);
        expect((await ok(c, 'get_storage', { projectId: pid, session: 's1' })).values).toEqual({ last: 'seen' });
        await ok(c, 'reset_session', { projectId: pid, session: 's1' });
        expect((await ok(c, 'get_collection_items', { projectId: pid, name: 'items', session: 's1' })).items).toEqual([
          { id: 1 },
          generated,
        ]);
        expect((await ok(c, 'get_storage', { projectId: pid, session: 's1' })).values).toEqual({});
        const rendered = await ok(c, 'render_template', {
          template: '{{request.params.id}}-{{request.query.q}}-{{request.headers.x-a}}-{{faker "string.alpha" 3}}',
          request: { params: { id: '9' }, query: 'q=z', headers: { 'X-A': 'h' } },
          seed: 'one',
        });
        expect(rendered.rendered).toMatch(/^9-z-h-[A-Za-z]{3}$/);
      });

      it('set_contract attaches a contract with its modes, and lint_contract checks the mocks against it', async () => {
        const c = await connect(token);
        const pid = (await ok(c, 'create_project', { name: `contract ${transport}` })).id as string;
        await ok(c, 'create_endpoint', { projectId: pid, method: 'GET', path: '/pets', responseBody: '[{"name":1}]' });
        const set = await ok(c, 'set_contract', {
          projectId: pid,
          document: PETSTORE,
          validation: { requests: 'enforce' },
        });
        expect(set).toMatchObject({ format: 'openapi-3.0', operations: 4, validation: { requests: 'enforce' } });
        const lint = await ok(c, 'lint_contract', { projectId: pid });
        expect((lint.operations as Json).total).toBe(4);
        expect(JSON.stringify(lint.endpoints)).toContain('must be string, got integer');
        expect((await s.client.mock(pid, 'GET', '/pets', { query: 'limit=0' })).status).toBe(400);
        const bad = await call(c, 'set_contract', { projectId: pid, document: 'openapi: 9' });
        expect(bad.isError).toBe(true);
      });

      it('create_rule and create_endpoint take every rule feature: the REST API reads back what was sent', async () => {
        const c = await connect(token);
        const pid = (await ok(c, 'create_project', { name: `rich ${transport}` })).id as string;
        await s.client.api('PATCH', `/api/admin/users/${me}`, { plan: 'pro' }, ADMIN_TOKEN);
        const [first] = RICH.endpoints as Json[];
        const { rules, ...fields } = first as { rules: Json[] } & Json;
        const ep = await ok(c, 'create_endpoint', { projectId: pid, ...fields });
        for (const rule of rules) await ok(c, 'create_rule', { projectId: pid, endpointId: ep.id, ...rule });
        const back = (await s.client.api('GET', `/api/projects/${pid}/endpoints/${ep.id}`, undefined, token)).json;
        expect(back.headers).toEqual(fields.headers);
        expect(
          back.rules.map(({ id: _i, endpointId: _e, state: _s, createdAt: _c, updatedAt: _u, ...r }: Json) => r),
        ).toEqual(rules);
      });

      it('import_mocks of the every-feature export brings its endpoints, validation modes and contract', async () => {
        const c = await connect(token);
        await s.client.api('PATCH', `/api/admin/users/${me}`, { plan: 'pro' }, ADMIN_TOKEN);
        const pid = (await ok(c, 'create_project', { name: `export ${transport}` })).id as string;
        const report = await ok(c, 'import_mocks', { projectId: pid, document: RICH });
        expect(report.format).toBe('mockyard');
        const api = (p: string) => s.client.api('GET', `/api/projects/${pid}${p}`, undefined, token);
        expect(((await api('/endpoints')).json as Json[]).length).toBe((RICH.endpoints as Json[]).length);
        expect((await api('')).json.validation).toEqual((RICH.project as Json).validation);
        const contract = await api('/contract');
        expect(contract.status).toBe(200);
        expect(contract.json).toEqual(RICH.contract);
      });

      it('bad input and other tenants’ ids are tool errors with the API’s code', async () => {
        const c = await connect(token);
        const missing = await call(c, 'list_endpoints', {});
        expect(missing.isError).toBe(true);
        expect(missing.structuredContent).toMatchObject({ error: { code: 'validation_failed' } });
        const other = await s.client.user();
        const theirs = await s.client.project(other.token, 'theirs');
        const foreign = await call(c, 'list_endpoints', { projectId: theirs.id });
        expect(foreign.structuredContent).toMatchObject({ error: { code: 'not_found' } });
        const bad = await call(c, 'create_endpoint', { projectId: theirs.id, method: 'GET', path: 'no-slash' });
        expect(bad.isError).toBe(true);
        const invalid = await call(c, 'create_rule', {
          projectId: theirs.id,
          endpointId: 'x',
          name: 'r',
          conditions: [{ target: 'body', operator: 'matches_regex', value: '(' }],
        });
        expect(invalid.isError).toBe(true);
        expect(
          (await s.client.api('GET', `/api/projects/${theirs.id}/endpoints`, undefined, other.token)).json,
        ).toEqual([]);
      });
    });
  }

  it('/mcp without a token is 401 in the API’s error shape', async () => {
    const r = await s.client.api('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(r.status).toBe(401);
    expect(r.json.error.code).toBe('unauthorized');
  });
});
