import type {
  ApiKey,
  AuthAnswer,
  Collection,
  Endpoint,
  ErrorDetail,
  ExportDocument,
  ImportFormat,
  ImportReport,
  LogEntry,
  MockSession,
  OnConflict,
  Project,
  Rule,
  RuleInput,
  TemplateHelper,
  User,
} from './types';

export type { ApiKey, TemplateHelper };

const TOKEN_KEY = 'mockyard.token';

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage unavailable (private mode): the session lasts until reload
  }
}

/** An error answer of the API, `{error: {code, message, details?}}`, or a network failure (status 0). */

export interface ContractAnswer {
  format: string;
  operations: number;
  warnings: { pointer: string; message: string }[];
}

export interface LintReport {
  operations: { total: number; mocked: number; unmocked: { method: string; path: string }[] };
  endpoints: {
    endpointId: string;
    method: string;
    path: string;
    operation: string | null;
    problems: { where: string; pointer?: string; message: string }[];
  }[];
}

export interface SampleRequest {
  method?: string;
  path?: string;
  query?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];

  constructor(status: number, code: string, message: string, details: ErrorDetail[] = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Called when any call answers 401 unauthorized (expired or revoked session). */
export function onUnauthorized(fn: UnauthorizedListener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

/** JSON pointer (`/a/0/b`) for whatever path spelling the server uses (`a[0].b`, `a.0.b`). */
export function normalizePath(path: string): string {
  if (!path) return '';
  if (path.startsWith('/')) return path;
  return `/${path.replace(/\[(\d+)\]/g, '.$1').replace(/\./g, '/')}`;
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

export async function request<T>(method: string, url: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const raw = body === undefined ? undefined : { text: JSON.stringify(body), contentType: 'application/json' };
  return send<T>(method, url, raw, signal);
}

/** Sends a body as it is (e.g. YAML), with its own content type. */
export async function send<T>(
  method: string,
  url: string,
  body?: { text: string | Blob; contentType: string },
  signal?: AbortSignal,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = body.contentType;
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: body?.text, signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(0, 'network_error', 'The server could not be reached. Check your connection and try again.');
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const e = (data as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | null)?.error;
    let details = Array.isArray(e?.details)
      ? e.details.map((d) => ({ path: normalizePath(String(d.path ?? '')), message: String(d.message ?? '') }))
      : [];
    // JSON-schema validators add generic lines for nullable unions ("must be null", "must match a schema
    // in anyOf") beside the precise one; keep only the precise ones when there are any.
    const generic = (m: string) => /must be null$|must match a schema in anyOf$/.test(m);
    if (details.some((d) => !generic(d.message))) details = details.filter((d) => !generic(d.message));
    const err = new ApiError(res.status, e?.code ?? `http_${res.status}`, e?.message ?? `HTTP ${res.status}`, details);
    if (res.status === 401 && err.code === 'unauthorized') for (const fn of unauthorizedListeners) fn();
    throw err;
  }
  return data as T;
}

const enc = encodeURIComponent;
const ep = (pid: string, eid: string) => `/api/projects/${enc(pid)}/endpoints/${enc(eid)}`;
/** `?session=ID` for a mock session; nothing for the shared state (session ''). */
const sq = (session: string | undefined) => (session ? `?session=${enc(session)}` : '');

/** JSON when the text parses as JSON, else YAML (the OpenAPI import takes both). */
export function documentType(text: string): 'application/json' | 'application/yaml' {
  try {
    JSON.parse(text);
    return 'application/json';
  } catch {
    return 'application/yaml';
  }
}

export type EndpointInput = Pick<Endpoint, 'method' | 'path' | 'statusCode' | 'responseBody' | 'contentType'> &
  Partial<Pick<Endpoint, 'headers' | 'validation' | 'channels' | 'graphql'>>;

export const api = {
  register: (email: string, password: string) => request<AuthAnswer>('POST', '/api/auth/register', { email, password }),
  login: (email: string, password: string) => request<AuthAnswer>('POST', '/api/auth/login', { email, password }),
  logout: () => request<void>('POST', '/api/auth/logout'),
  me: (signal?: AbortSignal) => request<User>('GET', '/api/auth/me', undefined, signal),

  projects: (signal?: AbortSignal) => request<Project[]>('GET', '/api/projects', undefined, signal),
  project: (id: string, signal?: AbortSignal) => request<Project>('GET', `/api/projects/${enc(id)}`, undefined, signal),
  createProject: (name: string) => request<Project>('POST', '/api/projects', { name }),
  renameProject: (id: string, name: string) => request<Project>('PATCH', `/api/projects/${enc(id)}`, { name }),
  updateProject: (
    id: string,
    patch: {
      fallbackUrl?: string | null;
      recording?: boolean;
      config?: Record<string, string>;
      validation?: Partial<Project['validation']>;
    },
  ) => request<Project>('PATCH', `/api/projects/${enc(id)}`, patch),
  /** The template helper table (docs/templates.md), for completion. */
  templateHelpers: (signal?: AbortSignal) =>
    request<TemplateHelper[]>('GET', '/api/templates/helpers', undefined, signal),
  /** A template rendered against a sample request (the live preview). */
  renderTemplate: (pid: string, body: { template: string; request?: SampleRequest }, signal?: AbortSignal) =>
    request<{ output: string }>('POST', `/api/projects/${enc(pid)}/templates/render`, body, signal),
  deleteProject: (id: string) => request<void>('DELETE', `/api/projects/${enc(id)}`),

  endpoints: (pid: string, signal?: AbortSignal) =>
    request<Endpoint[]>('GET', `/api/projects/${enc(pid)}/endpoints`, undefined, signal),
  endpoint: (pid: string, eid: string, signal?: AbortSignal) =>
    request<Endpoint>('GET', ep(pid, eid), undefined, signal),
  createEndpoint: (pid: string, input: EndpointInput) =>
    request<Endpoint>('POST', `/api/projects/${enc(pid)}/endpoints`, input),
  updateEndpoint: (pid: string, eid: string, input: Partial<EndpointInput>) =>
    request<Endpoint>('PATCH', ep(pid, eid), input),
  deleteEndpoint: (pid: string, eid: string) => request<void>('DELETE', ep(pid, eid)),

  /** Stored variables of the shared state (session '') or of one mock session. */
  keys: (signal?: AbortSignal) => request<ApiKey[]>('GET', '/api/auth/keys', undefined, signal),
  createKey: (body: { name: string; scope: 'read' | 'write'; projectIds?: string[]; expiresAt?: string }) =>
    request<ApiKey & { key: string }>('POST', '/api/auth/keys', body),
  revokeKey: (id: string) => request<void>('DELETE', `/api/auth/keys/${enc(id)}`),
  /** Empties the request log (of one mock session). */
  clearRequests: (pid: string, session?: string) =>
    request<void>('DELETE', `/api/projects/${enc(pid)}/requests${sq(session)}`),
  collections: (pid: string, signal?: AbortSignal) =>
    request<Collection[]>('GET', `/api/projects/${enc(pid)}/collections`, undefined, signal),
  createCollection: (pid: string, body: { name: string; idField?: string; seed: unknown[] }) =>
    request<Collection>('POST', `/api/projects/${enc(pid)}/collections`, body),
  updateCollection: (pid: string, name: string, body: { idField?: string; seed: unknown[] }) =>
    request<Collection>('PATCH', `/api/projects/${enc(pid)}/collections/${enc(name)}`, body),
  deleteCollection: (pid: string, name: string) =>
    request<void>('DELETE', `/api/projects/${enc(pid)}/collections/${enc(name)}`),
  collectionItems: (pid: string, name: string, session = '', signal?: AbortSignal) =>
    request<Record<string, unknown>[]>(
      'GET',
      `/api/projects/${enc(pid)}/collections/${enc(name)}/items${sq(session)}`,
      undefined,
      signal,
    ),
  resetCollection: (pid: string, name: string, session?: string) =>
    request<void>('POST', `/api/projects/${enc(pid)}/collections/${enc(name)}/reset${sq(session)}`),
  createResources: (pid: string, collection: string, path: string) =>
    request<{ created: Endpoint[]; skipped: { method: string; path: string; reason: string }[] }>(
      'POST',
      `/api/projects/${enc(pid)}/resources`,
      { collection, path },
    ),
  /** The endpoints of an LLM API answering in its wire format (docs/streams.md). */
  createPreset: (pid: string, preset: 'openai' | 'anthropic' | 'sample') =>
    request<{ created: Endpoint[] }>('POST', `/api/projects/${enc(pid)}/presets`, { preset }),
  /** The project's storage (store_variable with scope project), of the shared state or one session. */
  projectStorage: (pid: string, session = '', signal?: AbortSignal) =>
    request<Record<string, unknown>>('GET', `/api/projects/${enc(pid)}/storage${sq(session)}`, undefined, signal),
  /** Without a session: the project storage of the shared state and of every session. */
  clearProjectStorage: (pid: string, session?: string) =>
    request<void>('DELETE', `/api/projects/${enc(pid)}/storage${sq(session)}`),
  storage: (pid: string, eid: string, session = '', signal?: AbortSignal) =>
    request<Record<string, unknown>>('GET', `${ep(pid, eid)}/storage${sq(session)}`, undefined, signal),
  /** Without a session: the storage of the shared state and of every session. */
  clearStorage: (pid: string, eid: string, session = '') =>
    request<void>('DELETE', `${ep(pid, eid)}/storage${sq(session)}`),
  sessions: (pid: string, eid: string, signal?: AbortSignal) =>
    request<MockSession[]>('GET', `${ep(pid, eid)}/sessions`, undefined, signal),

  /** Rules with the sequence `state` of the shared state (session '') or of one mock session. */
  rules: (pid: string, eid: string, session = '', signal?: AbortSignal) =>
    request<Rule[]>('GET', `${ep(pid, eid)}/rules${sq(session)}`, undefined, signal),
  createRule: (pid: string, eid: string, input: RuleInput) => request<Rule>('POST', `${ep(pid, eid)}/rules`, input),
  updateRule: (pid: string, eid: string, rid: string, input: Partial<RuleInput>) =>
    request<Rule>('PATCH', `${ep(pid, eid)}/rules/${enc(rid)}`, input),
  deleteRule: (pid: string, eid: string, rid: string) => request<void>('DELETE', `${ep(pid, eid)}/rules/${enc(rid)}`),
  /** Without a session: resets the shared state and every session. */
  resetRule: (pid: string, eid: string, rid: string, session = '') =>
    request<Rule>('POST', `${ep(pid, eid)}/rules/${enc(rid)}/reset${sq(session)}`),

  requests: (pid: string, limit = 100, signal?: AbortSignal) =>
    request<LogEntry[]>('GET', `/api/projects/${enc(pid)}/requests?limit=${limit}`, undefined, signal),
  /** Verification's find: the entries every given field matches, oldest first. */
  findRequests: (pid: string, filter: { method?: string; path?: string; headers?: Record<string, string> }) =>
    request<LogEntry[]>('POST', `/api/projects/${enc(pid)}/requests/find`, filter),

  /** Any import format; '' lets the server detect it. */
  /** WebSocket mocks (docs/websocket.md): a push to a channel, and the open sockets. */
  pushToChannel: (pid: string, channel: string, body: { body: string; session?: string }) =>
    request<{ delivered: number }>('POST', `/api/projects/${enc(pid)}/channels/${enc(channel)}/messages`, body),
  sockets: (pid: string) =>
    request<
      { id: string; endpointId: string; path: string; session: string; channels: string[]; connectedAt: string }[]
    >('GET', `/api/projects/${enc(pid)}/sockets`),
  /** The project's contract (docs/contract.md): attach or replace (JSON or YAML), read, remove, lint. */
  putContract: (pid: string, text: string) =>
    send<ContractAnswer>('PUT', `/api/projects/${enc(pid)}/contract`, { text, contentType: documentType(text) }),
  contract: (pid: string, signal?: AbortSignal) =>
    request<unknown>('GET', `/api/projects/${enc(pid)}/contract`, undefined, signal),
  deleteContract: (pid: string) => request<void>('DELETE', `/api/projects/${enc(pid)}/contract`),
  lintContract: (pid: string, signal?: AbortSignal) =>
    request<LintReport>('GET', `/api/projects/${enc(pid)}/contract/lint`, undefined, signal),
  /** A folder or a zip of mock files (docs/interop.md "Folders and zips"). */
  importZip: (pid: string, zip: Blob, onConflict: OnConflict) =>
    send<ImportReport>('POST', `/api/projects/${enc(pid)}/import?onConflict=${onConflict}`, {
      text: zip,
      contentType: 'application/zip',
    }),
  importDocument: (pid: string, text: string, onConflict: OnConflict, format: ImportFormat | '') =>
    send<ImportReport>(
      'POST',
      `/api/projects/${enc(pid)}/import${format ? `/${format}` : ''}?onConflict=${onConflict}`,
      {
        text,
        contentType: documentType(text),
      },
    ),
  exportProject: (pid: string, storage: boolean) =>
    request<ExportDocument>('GET', `/api/projects/${enc(pid)}/export${storage ? '?storage=true' : ''}`),
  /** Creates a new project from an export document (sent as it is; the server checks it). */
  importProject: (text: string, name?: string) =>
    send<Project>('POST', `/api/projects/import${name ? `?name=${enc(name)}` : ''}`, {
      text,
      contentType: 'application/json',
    }),
};
