/**
 * The MCP tools (docs/agents.md): each is a thin layer over REST routes — the same guards, validation,
 * limits and errors as any API client — with a JSON Schema input made from the domain's schemas and a
 * structured result. `read` tools are all a `read` API key is offered.
 */
import { randomUUID } from 'node:crypto';
import { type TSchema, Type } from '@sinclair/typebox';
import { ruleStatuses, statusInWords } from '../domain/explain.js';
import type { RequestLogEntry, Rule } from '../domain/model.js';
import { EndpointBody, EndpointPatch, ProjectBody, RuleBody, RulePatch } from '../domain/schemas.js';
import type { ApiCaller } from './caller.js';
import { contractTools } from './contract-tools.js';
import { renderTemplate } from './render.js';
import { ToolError } from './tool-error.js';
import { call, enc, endpointId, id, projectId, ruleId, session, str, type Tool, wrap } from './tool-kit.js';

export type { Tool } from './tool-kit.js';
export { ToolError };

const withoutIds = (args: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(Object.entries(args).filter(([k]) => !keys.includes(k)));

const properties = (schema: TSchema) => (schema as unknown as { properties: Record<string, TSchema> }).properties;

const LogFilter = Type.Object(
  {
    method: Type.Optional(Type.String()),
    path: Type.Optional(Type.String()),
    pathPattern: Type.Optional(Type.String({ maxLength: 512 })),
    endpointId: Type.Optional(Type.String()),
    ruleId: Type.Optional(Type.String()),
    session: Type.Optional(Type.String()),
    statusCode: Type.Optional(Type.Integer()),
    since: Type.Optional(Type.String()),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { description: 'which logged mock requests (every field optional; all given ones must match)' },
);

async function logEntry(api: ApiCaller, pid: string, requestId: string): Promise<RequestLogEntry> {
  const entries = (await call(api, 'GET', `/api/projects/${enc(pid)}/requests?limit=500`)) as RequestLogEntry[];
  const entry = entries.find((e) => e.id === requestId);
  if (!entry) throw new ToolError('not_found', 'No such request in the project’s log (the last 500 are searched)');
  return entry;
}

/** Which rule answered a logged request, and for every other rule why not: data and sentences. */
async function explain(api: ApiCaller, pid: string, requestId: string) {
  const entry = await logEntry(api, pid, requestId);
  if (!entry.endpointId) {
    const why = entry.proxied
      ? 'No endpoint matched; the request went to the fallback URL.'
      : 'No endpoint of the project matched this method and path.';
    // the near misses the 404 named (docs/api.md "Mock traffic"), in words
    const nearest = entry.nearest ?? [];
    const sentences = [why, ...nearest.map((n) => `Nearest: ${n.method} ${n.path} — ${n.why}.`)];
    return {
      requestId,
      endpointId: null,
      answeredBy: null,
      statusCode: entry.statusCode,
      rules: [],
      nearest,
      sentences,
    };
  }
  const rules = (await call(
    api,
    'GET',
    `/api/projects/${enc(pid)}/endpoints/${enc(entry.endpointId)}/rules`,
  )) as Rule[];
  const statuses = ruleStatuses(entry, rules);
  const sentences = statuses.map(statusInWords);
  if (!entry.ruleId) sentences.push(`No rule answered: the endpoint's default answer was sent (${entry.statusCode}).`);
  return {
    requestId,
    endpointId: entry.endpointId,
    answeredBy: entry.ruleId,
    statusCode: entry.statusCode,
    rules: statuses.map((s) => ({
      ruleId: s.rule.id,
      name: s.rule.name,
      status: s.status,
      ...(s.status === 'failed' && s.index !== undefined
        ? { failedCondition: s.index, condition: s.condition, received: s.received }
        : {}),
    })),
    sentences,
  };
}

/** Sends a mock request, then finds its log entry by a header of its own. */
async function sendTest(api: ApiCaller, args: Record<string, unknown>) {
  const pid = String(args.projectId);
  const marker = randomUUID();
  const headers: Record<string, string> = {
    ...((args.headers as Record<string, string>) ?? {}),
    'x-mockyard-mcp': marker,
  };
  if (args.session) headers['x-mockyard-session'] = String(args.session);
  const method = String(args.method ?? 'GET').toUpperCase();
  const answer = await api.mock(pid, method, String(args.path), headers, args.body as string | undefined);
  let entry: RequestLogEntry | null = null;
  for (let i = 0; i < 60 && entry === null; i++) {
    const list = (await call(api, 'GET', `/api/projects/${enc(pid)}/requests?limit=50`)) as RequestLogEntry[];
    entry = list.find((e) => e.headers['x-mockyard-mcp'] === marker) ?? null;
    if (entry === null) await new Promise((r) => setTimeout(r, 50));
  }
  return { answer, entry };
}

export const TOOLS: Tool[] = [
  {
    name: 'list_projects',
    description: 'The caller’s projects (id, name, slug, mockUrl).',
    read: true,
    input: Type.Object({}),
    run: async (_a, api) => wrap(await call(api, 'GET', '/api/projects')),
  },
  {
    name: 'create_project',
    description: 'Create a project; its mocks answer at its mockUrl.',
    read: false,
    input: ProjectBody,
    run: async (a, api) => wrap(await call(api, 'POST', '/api/projects', a)),
  },
  {
    name: 'list_endpoints',
    description: 'The endpoints of a project (method, path, default answer).',
    read: true,
    input: Type.Object({ projectId }),
    run: async (a, api) => wrap(await call(api, 'GET', `/api/projects/${str(a.projectId)}/endpoints`)),
  },
  {
    name: 'create_endpoint',
    description:
      'Create a mock endpoint: method, path (`:name` segments, a final `*`), default status, body, content type.',
    read: false,
    input: Type.Object({ projectId, ...properties(EndpointBody) }),
    run: async (a, api) =>
      wrap(await call(api, 'POST', `/api/projects/${str(a.projectId)}/endpoints`, withoutIds(a, 'projectId'))),
  },
  {
    name: 'update_endpoint',
    description: 'Change fields of an endpoint (omitted fields keep their value).',
    read: false,
    input: Type.Object({ projectId, endpointId, ...properties(EndpointPatch) }),
    run: async (a, api) =>
      wrap(
        await call(
          api,
          'PATCH',
          `/api/projects/${str(a.projectId)}/endpoints/${str(a.endpointId)}`,
          withoutIds(a, 'projectId', 'endpointId'),
        ),
      ),
  },
  {
    name: 'delete_endpoint',
    description: 'Delete an endpoint with its rules.',
    read: false,
    input: Type.Object({ projectId, endpointId }),
    run: async (a, api) => {
      await call(api, 'DELETE', `/api/projects/${str(a.projectId)}/endpoints/${str(a.endpointId)}`);
      return { deleted: true };
    },
  },
  {
    name: 'list_rules',
    description: 'The rules of an endpoint in evaluation order, with their sequence state.',
    read: true,
    input: Type.Object({ projectId, endpointId }),
    run: async (a, api) =>
      wrap(await call(api, 'GET', `/api/projects/${str(a.projectId)}/endpoints/${str(a.endpointId)}/rules`)),
  },
  {
    name: 'create_rule',
    description: 'Add a rule: conditions, a response (a sequence of steps, loop or hold_last) and actions.',
    read: false,
    input: Type.Object({ projectId, endpointId, ...properties(RuleBody) }),
    run: async (a, api) =>
      wrap(
        await call(
          api,
          'POST',
          `/api/projects/${str(a.projectId)}/endpoints/${str(a.endpointId)}/rules`,
          withoutIds(a, 'projectId', 'endpointId'),
        ),
      ),
  },
  {
    name: 'update_rule',
    description: 'Change fields of a rule (e.g. {"active": false}); a new response restarts its sequence.',
    read: false,
    input: Type.Object({ projectId, endpointId, ruleId, ...properties(RulePatch) }),
    run: async (a, api) =>
      wrap(
        await call(
          api,
          'PATCH',
          `/api/projects/${str(a.projectId)}/endpoints/${str(a.endpointId)}/rules/${str(a.ruleId)}`,
          withoutIds(a, 'projectId', 'endpointId', 'ruleId'),
        ),
      ),
  },
  {
    name: 'delete_rule',
    description: 'Delete a rule.',
    read: false,
    input: Type.Object({ projectId, endpointId, ruleId }),
    run: async (a, api) => {
      await call(
        api,
        'DELETE',
        `/api/projects/${str(a.projectId)}/endpoints/${str(a.endpointId)}/rules/${str(a.ruleId)}`,
      );
      return { deleted: true };
    },
  },
  {
    name: 'import_mocks',
    description:
      'Import a document into a project: OpenAPI 3.x, Swagger 2.0, WireMock, Mockoon, Postman, HAR or a Mockyard export (an object, or YAML/JSON text).',
    read: false,
    input: Type.Object({
      projectId,
      document: Type.Union(
        [Type.Object({}, { additionalProperties: true }), Type.Array(Type.Unknown()), Type.String()],
        {
          description: 'the document, parsed or as text',
        },
      ),
      format: Type.Optional(
        Type.Union(
          ['openapi', 'wiremock', 'mockoon', 'postman', 'har'].map((f) => Type.Literal(f)),
          {
            description: 'detected when absent',
          },
        ),
      ),
      onConflict: Type.Optional(Type.Union(['fail', 'skip', 'replace'].map((f) => Type.Literal(f)))),
    }),
    run: async (a, api) => {
      const text = typeof a.document === 'string' ? a.document : JSON.stringify(a.document);
      const yaml = typeof a.document === 'string' && !/^\s*[[{]/.test(a.document);
      const path = `/api/projects/${str(a.projectId)}/import${a.format ? `/${str(a.format)}` : ''}?onConflict=${str(a.onConflict ?? 'fail')}`;
      return wrap(await call(api, 'POST', path, text, yaml ? 'application/yaml' : 'application/json'));
    },
  },
  {
    name: 'find_requests',
    description: 'Logged mock requests that match a filter, oldest first (at most 500).',
    read: true,
    input: Type.Object({ projectId, filter: Type.Optional(LogFilter) }),
    run: async (a, api) =>
      wrap(await call(api, 'POST', `/api/projects/${str(a.projectId)}/requests/find`, a.filter ?? {})),
  },
  {
    name: 'count_requests',
    description: 'How many logged mock requests match a filter (verification for tests).',
    read: true,
    input: Type.Object({ projectId, filter: Type.Optional(LogFilter) }),
    run: async (a, api) =>
      wrap(await call(api, 'POST', `/api/projects/${str(a.projectId)}/requests/count`, a.filter ?? {})),
  },
  {
    name: 'explain_request',
    description:
      'Why a logged request got its answer: which rule answered, and for every other rule the first condition that failed with the value the request had — in sentences and as data.',
    read: true,
    input: Type.Object({ projectId, requestId: id('the log entry’s id (find_requests)') }),
    run: (a, api) => explain(api, String(a.projectId), String(a.requestId)),
  },
  {
    name: 'send_test_request',
    description: 'Send a request to the project’s mock and get the answer with its log entry (rule trace included).',
    read: false,
    input: Type.Object({
      projectId,
      method: Type.Optional(Type.String({ default: 'GET', maxLength: 16 })),
      path: Type.String({ minLength: 1, maxLength: 2048, description: 'the path as the app calls it, with a query' }),
      headers: Type.Optional(Type.Record(Type.String(), Type.String())),
      body: Type.Optional(Type.String({ maxLength: 1024 * 1024 })),
      session,
    }),
    run: (a, api) => sendTest(api, a),
  },
  {
    name: 'reset_session',
    description:
      'Forget what one mock session changed: its project and endpoint storage, its copies of collections and its request log.',
    read: false,
    input: Type.Object({ projectId, session: Type.String({ minLength: 1, maxLength: 200 }) }),
    run: async (a, api) => {
      const pid = str(a.projectId);
      const q = `?session=${str(a.session)}`;
      await call(api, 'DELETE', `/api/projects/${pid}/storage${q}`);
      const endpoints = (await call(api, 'GET', `/api/projects/${pid}/endpoints`)) as { id: string }[];
      for (const e of endpoints) await call(api, 'DELETE', `/api/projects/${pid}/endpoints/${enc(e.id)}/storage${q}`);
      const collections = (await call(api, 'GET', `/api/projects/${pid}/collections`)) as { name: string }[];
      for (const c of collections) await call(api, 'POST', `/api/projects/${pid}/collections/${enc(c.name)}/reset${q}`);
      await call(api, 'DELETE', `/api/projects/${pid}/requests${q}`);
      return { session: a.session, endpoints: endpoints.length, collections: collections.length };
    },
  },
  {
    name: 'get_storage',
    description: 'Stored variables of the project, or of one endpoint, as a session (or the shared state) sees them.',
    read: true,
    input: Type.Object({ projectId, endpointId: Type.Optional(endpointId), session }),
    run: async (a, api) => {
      const q = a.session ? `?session=${str(a.session)}` : '';
      const path = a.endpointId
        ? `/api/projects/${str(a.projectId)}/endpoints/${str(a.endpointId)}/storage${q}`
        : `/api/projects/${str(a.projectId)}/storage${q}`;
      return { values: await call(api, 'GET', path) };
    },
  },
  {
    name: 'list_collections',
    description: 'The project’s collections with their seeds.',
    read: true,
    input: Type.Object({ projectId }),
    run: async (a, api) => wrap(await call(api, 'GET', `/api/projects/${str(a.projectId)}/collections`)),
  },
  {
    name: 'get_collection_items',
    description: 'A collection as a session (or the shared state) sees it now.',
    read: true,
    input: Type.Object({ projectId, name: Type.String({ minLength: 1, maxLength: 64 }), session }),
    run: async (a, api) => {
      const q = a.session ? `?session=${str(a.session)}` : '';
      return wrap(await call(api, 'GET', `/api/projects/${str(a.projectId)}/collections/${str(a.name)}/items${q}`));
    },
  },
  {
    name: 'render_template',
    description:
      'Render a template (docs/templates.md) against a sample request, as a step body would be: {{request.…}}, {{$uuid}}, {{faker …}}, helpers.',
    read: true,
    input: Type.Object({
      template: Type.String({ maxLength: 64 * 1024 }),
      request: Type.Optional(
        Type.Object({
          method: Type.Optional(Type.String()),
          path: Type.Optional(Type.String()),
          query: Type.Optional(Type.String({ description: 'a=1&b=2' })),
          headers: Type.Optional(Type.Record(Type.String(), Type.String())),
          body: Type.Optional(Type.String()),
          params: Type.Optional(Type.Record(Type.String(), Type.String())),
        }),
      ),
      seed: Type.Optional(Type.String({ description: 'as X-Mockyard-Seed: the same values every time' })),
    }),
    run: async (a) => renderTemplate(a),
  },
  ...contractTools,
];
