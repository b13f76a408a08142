/**
 * The management API as resource groups, one method per route, named after the resource
 * (`projects.create`, `rules.reset`, `requests.count`, …). The route strings here are the only copy
 * in the client; test/client/coverage.test.ts checks them against /api/openapi.json both ways.
 */
import type {
  Action,
  ApiKey,
  ApiKeyFields,
  Collection,
  Condition,
  DataBinding,
  Endpoint,
  HttpMethod,
  ImportReport,
  MockSession,
  Plan,
  Project,
  RequestFilter,
  RequestLogEntry,
  Rule,
  RuleResponse,
  TemplateHelper,
  User,
} from '../domain/model.js';

export type { TemplateHelper };

import { MockyardError, type Query, route, type Transport } from './http.js';

export type { RequestFilter };

export type Json = Record<string, unknown>;
export interface ProjectFields {
  name?: string;
  fallbackUrl?: string | null;
  slug?: string;
}
export type ProjectView = Project & { mockUrl: string };
export interface EndpointFields {
  method?: HttpMethod | Lowercase<HttpMethod>;
  path?: string;
  statusCode?: number;
  responseBody?: string;
  contentType?: string;
  data?: DataBinding | null;
}
export interface RuleFields {
  name?: string;
  priority?: number;
  active?: boolean;
  conditions?: Condition[];
  response?:
    | (Omit<RuleResponse, 'mode' | 'steps'> & {
        mode?: RuleResponse['mode'];
        steps: Partial<RuleResponse['steps'][number]>[];
      })
    | null;
  actions?: (Partial<Action> & { type: Action['type'] })[];
}
export type ApiKeyView = ApiKey;
export type { ApiKeyFields, ImportReport };

type OnConflict = { onConflict?: 'fail' | 'skip' | 'replace' };
type Session = { session?: string };

export interface Auth {
  register(body: { email: string; password: string }): Promise<{ token: string; user: User }>;
  login(body: { email: string; password: string }): Promise<{ token: string; user: User }>;
  logout(): Promise<void>;
  me(): Promise<User>;
  changePassword(body: { oldPassword: string; newPassword: string }): Promise<void>;
}
export interface Keys {
  create(body: ApiKeyFields): Promise<ApiKeyView & { key: string }>;
  list(): Promise<ApiKeyView[]>;
  delete(id: string): Promise<void>;
}
export interface Admin {
  setPlan(userId: string, body: { plan: Plan }): Promise<User>;
}
export interface Projects {
  list(): Promise<ProjectView[]>;
  create(body: ProjectFields & { name: string }): Promise<ProjectView>;
  get(id: string): Promise<ProjectView>;
  replace(id: string, body: ProjectFields): Promise<ProjectView>;
  update(id: string, body: ProjectFields): Promise<ProjectView>;
  delete(id: string): Promise<void>;
  export(id: string, query?: { storage?: boolean }): Promise<Json>;
  /** a new project from an export document */
  import(doc: Json, query?: { name?: string }): Promise<ProjectView>;
}
export interface Endpoints {
  list(projectId: string): Promise<Endpoint[]>;
  create(projectId: string, body: EndpointFields & { method: string; path: string }): Promise<Endpoint>;
  get(projectId: string, id: string): Promise<Endpoint>;
  replace(projectId: string, id: string, body: EndpointFields): Promise<Endpoint>;
  update(projectId: string, id: string, body: EndpointFields): Promise<Endpoint>;
  delete(projectId: string, id: string): Promise<void>;
  sessions(projectId: string, id: string): Promise<MockSession[]>;
  storage(projectId: string, id: string, query?: Session): Promise<Record<string, string>>;
  clearStorage(projectId: string, id: string, query?: Session): Promise<void>;
}
export interface Rules {
  list(projectId: string, endpointId: string, query?: Session): Promise<Rule[]>;
  create(projectId: string, endpointId: string, body: RuleFields & { name: string }): Promise<Rule>;
  get(projectId: string, endpointId: string, ruleId: string, query?: Session): Promise<Rule>;
  replace(projectId: string, endpointId: string, ruleId: string, body: RuleFields): Promise<Rule>;
  update(projectId: string, endpointId: string, ruleId: string, body: RuleFields): Promise<Rule>;
  delete(projectId: string, endpointId: string, ruleId: string): Promise<void>;
  reset(projectId: string, endpointId: string, ruleId: string, query?: Session): Promise<Rule>;
}
export interface Requests {
  list(projectId: string, query?: { limit?: number }): Promise<RequestLogEntry[]>;
  count(projectId: string, filter?: RequestFilter): Promise<{ count: number }>;
  find(projectId: string, filter?: RequestFilter): Promise<RequestLogEntry[]>;
  clear(projectId: string, query?: Session): Promise<void>;
  /**
   * The live request log (Server-Sent Events): `onEntry` for each request as it is answered;
   * resolves once connected, with `close()` to stop.
   */
  stream(projectId: string, onEntry: (e: RequestLogEntry) => void): Promise<{ close(): void }>;
}
export interface Storage {
  get(projectId: string, query?: Session): Promise<Record<string, string>>;
  clear(projectId: string, query?: Session): Promise<void>;
}
export interface Collections {
  list(projectId: string): Promise<Collection[]>;
  create(projectId: string, body: { name: string; idField?: string; seed?: Json[] }): Promise<Collection>;
  get(projectId: string, name: string): Promise<Collection>;
  replace(projectId: string, name: string, body: { idField?: string; seed?: Json[] }): Promise<Collection>;
  update(projectId: string, name: string, body: { idField?: string; seed?: Json[] }): Promise<Collection>;
  delete(projectId: string, name: string): Promise<void>;
  items(projectId: string, name: string, query?: Session): Promise<Json[]>;
  reset(projectId: string, name: string, query?: Session): Promise<void>;
  /** the six REST endpoints of a resource bound to a collection */
  resources(
    projectId: string,
    body: { collection: string; path: string },
  ): Promise<{ created: Endpoint[]; skipped: ImportReport['skipped'] }>;
}
export interface Presets {
  /** the endpoints of an LLM API (`openai` or `anthropic`) answering in its wire format (docs/streams.md) */
  create(projectId: string, body: { preset: 'openai' | 'anthropic' }): Promise<{ created: Endpoint[] }>;
}
export interface Templates {
  /** every template helper (docs/templates.md) */
  helpers(): Promise<TemplateHelper[]>;
  /** a template rendered against a sample request, with the project's config variables */
  render(
    projectId: string,
    body: { template: string; request?: Record<string, unknown>; seed?: string },
  ): Promise<{ output: string }>;
}
export interface Sockets {
  /** the project's open WebSockets on the server's process (docs/websocket.md) */
  list(
    projectId: string,
  ): Promise<
    { id: string; endpointId: string; path: string; session: string; channels: string[]; connectedAt: string }[]
  >;
  /** a message to the sockets on a channel (in a mock session), on every process */
  push(projectId: string, channel: string, body: { body: string; session?: string }): Promise<{ delivered: number }>;
}
export interface Contract {
  /** attach or replace the project's OpenAPI contract (docs/contract.md) */
  put(
    projectId: string,
    document: object,
  ): Promise<{ format: string; operations: number; warnings: { pointer: string; message: string }[] }>;
  get(projectId: string): Promise<object>;
  delete(projectId: string): Promise<void>;
  /** every endpoint's answers against the contract, and the operations no endpoint mocks */
  lint(projectId: string): Promise<{
    operations: { total: number; mocked: number; unmocked: { method: string; path: string }[] };
    endpoints: {
      endpointId: string;
      method: string;
      path: string;
      operation: string | null;
      problems: { where: string; pointer?: string; message: string }[];
    }[];
  }>;
}
export interface Imports {
  /** any supported format, detected */
  any(projectId: string, doc: unknown, query?: OnConflict): Promise<ImportReport>;
  openapi(projectId: string, doc: unknown, query?: OnConflict): Promise<ImportReport>;
  wiremock(projectId: string, doc: unknown, query?: OnConflict): Promise<ImportReport>;
  mockoon(projectId: string, doc: unknown, query?: OnConflict): Promise<ImportReport>;
  postman(projectId: string, doc: unknown, query?: OnConflict): Promise<ImportReport>;
  har(projectId: string, doc: unknown, query?: OnConflict): Promise<ImportReport>;
  /** a GraphQL schema (SDL or an introspection result) as an endpoint (docs/graphql.md) */
  graphql(projectId: string, doc: unknown, query?: { path?: string }): Promise<ImportReport>;
}

export function resources(t: Transport) {
  const r = (method: string, template: string, body = false) => route(t, method, template, { body });
  const P = '/api/projects/{projectId}';
  const E = `${P}/endpoints/{id}`;
  const R = `${P}/endpoints/{endpointId}/rules`;
  const C = `${P}/collections`;
  const auth: Auth = {
    register: r('POST', '/api/auth/register', true),
    login: r('POST', '/api/auth/login', true),
    logout: r('POST', '/api/auth/logout'),
    me: r('GET', '/api/auth/me'),
    changePassword: r('PUT', '/api/auth/password', true),
  };
  const keys: Keys = {
    create: r('POST', '/api/auth/keys', true),
    list: r('GET', '/api/auth/keys'),
    delete: r('DELETE', '/api/auth/keys/{id}'),
  };
  const admin: Admin = { setPlan: r('PATCH', '/api/admin/users/{userId}', true) };
  const projects: Projects = {
    list: r('GET', '/api/projects'),
    create: r('POST', '/api/projects', true),
    get: r('GET', '/api/projects/{id}'),
    replace: r('PUT', '/api/projects/{id}', true),
    update: r('PATCH', '/api/projects/{id}', true),
    delete: r('DELETE', '/api/projects/{id}'),
    export: r('GET', '/api/projects/{id}/export'),
    import: r('POST', '/api/projects/import', true),
  };
  const endpoints: Endpoints = {
    list: r('GET', `${P}/endpoints`),
    create: r('POST', `${P}/endpoints`, true),
    get: r('GET', E),
    replace: r('PUT', E, true),
    update: r('PATCH', E, true),
    delete: r('DELETE', E),
    sessions: r('GET', `${E}/sessions`),
    storage: r('GET', `${E}/storage`),
    clearStorage: r('DELETE', `${E}/storage`),
  };
  const rules: Rules = {
    list: r('GET', R),
    create: r('POST', R, true),
    get: r('GET', `${R}/{ruleId}`),
    replace: r('PUT', `${R}/{ruleId}`, true),
    update: r('PATCH', `${R}/{ruleId}`, true),
    delete: r('DELETE', `${R}/{ruleId}`),
    reset: r('POST', `${R}/{ruleId}/reset`),
  };
  const requests: Requests = {
    list: r('GET', `${P}/requests`),
    count: r('POST', `${P}/requests/count`, true),
    find: r('POST', `${P}/requests/find`, true),
    clear: r('DELETE', `${P}/requests`),
    stream: streamRoute(t, `${P}/requests/stream`),
  };
  const storage: Storage = { get: r('GET', `${P}/storage`), clear: r('DELETE', `${P}/storage`) };
  const collections: Collections = {
    list: r('GET', C),
    create: r('POST', C, true),
    get: r('GET', `${C}/{name}`),
    replace: r('PUT', `${C}/{name}`, true),
    update: r('PATCH', `${C}/{name}`, true),
    delete: r('DELETE', `${C}/{name}`),
    items: r('GET', `${C}/{name}/items`),
    reset: r('POST', `${C}/{name}/reset`),
    resources: r('POST', `${P}/resources`, true),
  };
  const imports: Imports = {
    any: r('POST', `${P}/import`, true),
    openapi: r('POST', `${P}/import/openapi`, true),
    wiremock: r('POST', `${P}/import/wiremock`, true),
    mockoon: r('POST', `${P}/import/mockoon`, true),
    postman: r('POST', `${P}/import/postman`, true),
    har: r('POST', `${P}/import/har`, true),
    graphql: r('POST', `${P}/import/graphql`, true),
  };
  const presets: Presets = { create: r('POST', `${P}/presets`, true) };
  const templates: Templates = {
    helpers: r('GET', '/api/templates/helpers'),
    render: r('POST', `${P}/templates/render`, true),
  };
  const contract: Contract = {
    put: r('PUT', `${P}/contract`, true),
    get: r('GET', `${P}/contract`),
    delete: r('DELETE', `${P}/contract`),
    lint: r('GET', `${P}/contract/lint`),
  };
  return {
    auth,
    keys,
    admin,
    projects,
    endpoints,
    rules,
    requests,
    storage,
    collections,
    imports,
    presets,
    templates,
    contract,
    sockets: {
      list: r('GET', `${P}/sockets`),
      push: r('POST', `${P}/channels/{channel}/messages`, true),
    } satisfies Sockets,
  };
}

/** GET on a Server-Sent Events route: entries to a callback until closed. */
function streamRoute(t: Transport, template: string) {
  const fn = async (projectId: string, onEntry: (e: RequestLogEntry) => void) => {
    const abort = new AbortController();
    const url = new URL(template.replace('{projectId}', encodeURIComponent(projectId)), t.baseUrl);
    const res = await t.fetch(url, {
      headers: { accept: 'text/event-stream', ...(t.token ? { authorization: `Bearer ${t.token}` } : {}) },
      signal: abort.signal,
    });
    if (!res.ok || !res.body) {
      const err = ((await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } }).error;
      throw new MockyardError(res.status, err?.code ?? 'http_error', err?.message ?? 'the stream did not open');
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of event.split('\n')) if (line.startsWith('data: ')) onEntry(JSON.parse(line.slice(6)));
            end = buffer.indexOf('\n\n');
          }
        }
      } catch {
        // closed
      }
    })();
    return { close: () => abort.abort() };
  };
  Object.defineProperty(fn, 'route', { value: `GET ${template}`, enumerable: false });
  return fn;
}

export type { Query };
