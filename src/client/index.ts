/**
 * `import { Mockyard } from 'mockyard/client'` (docs/testing.md "The client"): a typed client of the
 * management API for test suites — every route as a method of its resource group, plus what tests
 * need around it: `mock()` calls a mock URL, `withSession()` gives a test its own X-Mockyard-Session
 * and cleans its state up after, `verify()` fails with the nearest requests when a count is off,
 * and `stub()` creates endpoints and rules fluently.
 */
import type { HttpMethod, RequestLogEntry } from '../domain/model.js';
import { StubBuilder } from './builder.js';
import type { Transport } from './http.js';
import { type RequestFilter, resources } from './resources.js';

export { EndpointBuilder, RuleBuilder, StubBuilder } from './builder.js';
export { MockyardError, routesOf } from './http.js';
export type * from './resources.js';

export interface MockyardOptions {
  /** where Mockyard runs, e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** a login token or an API key (`myk_…`); for `serve --file`, MOCKYARD_ADMIN_TOKEN */
  token?: string;
  /** mocks at the root path (`mockyard serve --file`) instead of /m/<projectId> */
  rootMocks?: boolean;
  fetch?: typeof fetch;
}

/** `verify()` found another number of requests than expected. */
export class VerificationError extends Error {
  constructor(
    message: string,
    readonly expected: number,
    readonly actual: number,
    readonly nearest: RequestLogEntry[],
  ) {
    super(message);
    this.name = 'VerificationError';
  }
}

const SESSION_HEADER = 'x-mockyard-session';

/** The server matched with RE2; here it only ranks candidates, so a pattern JS cannot read counts as a miss. */
function matchesPattern(pattern: string, path: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(path);
  } catch {
    return false;
  }
}

/** How far a logged request is from a filter: the fields that differ, as "field: expected …, got …". */
function differences(e: RequestLogEntry, f: RequestFilter): string[] {
  const out: string[] = [];
  const q = (v: unknown) => JSON.stringify(v);
  if (f.method !== undefined && e.method !== f.method.toUpperCase())
    out.push(`method: expected ${q(f.method.toUpperCase())}, got ${q(e.method)}`);
  if (f.path !== undefined && e.path !== f.path) out.push(`path: expected ${q(f.path)}, got ${q(e.path)}`);
  if (f.pathPattern !== undefined && !matchesPattern(f.pathPattern, e.path))
    out.push(`path: expected /${f.pathPattern}/, got ${q(e.path)}`);
  if (f.statusCode !== undefined && e.statusCode !== f.statusCode)
    out.push(`statusCode: expected ${f.statusCode}, got ${e.statusCode}`);
  if (f.endpointId !== undefined && e.endpointId !== f.endpointId)
    out.push(`endpointId: expected ${q(f.endpointId)}, got ${q(e.endpointId)}`);
  if (f.ruleId !== undefined && e.ruleId !== f.ruleId) out.push(`ruleId: expected ${q(f.ruleId)}, got ${q(e.ruleId)}`);
  for (const [name, value] of Object.entries(f.headers ?? {})) {
    const got = e.headers[name.toLowerCase()];
    if (got !== value) out.push(`header ${name}: expected ${q(value)}, got ${got === undefined ? 'none' : q(got)}`);
  }
  return out;
}

export class Mockyard {
  readonly auth;
  readonly keys;
  readonly admin;
  readonly projects;
  readonly endpoints;
  readonly rules;
  readonly requests;
  readonly storage;
  readonly collections;
  readonly imports;
  readonly presets;
  readonly templates;
  readonly contract;
  readonly sockets;
  private readonly t: Transport;

  constructor(readonly options: MockyardOptions) {
    this.t = { baseUrl: options.baseUrl.replace(/\/+$/, ''), token: options.token, fetch: options.fetch ?? fetch };
    const r = resources(this.t);
    this.auth = r.auth;
    this.keys = r.keys;
    this.admin = r.admin;
    this.projects = r.projects;
    this.endpoints = r.endpoints;
    this.rules = r.rules;
    this.requests = r.requests;
    this.storage = r.storage;
    this.collections = r.collections;
    this.imports = r.imports;
    this.presets = r.presets;
    this.templates = r.templates;
    this.contract = r.contract;
    this.sockets = r.sockets;
  }

  /** The same client with another token (e.g. after `auth.register`). */
  withToken(token: string): Mockyard {
    return new Mockyard({ ...this.options, token });
  }

  /** The URL of a mock path of a project. */
  mockUrl(projectId: string, path: string): string {
    const p = path.startsWith('/') ? path : `/${path}`;
    return this.options.rootMocks
      ? `${this.t.baseUrl}${p}`
      : `${this.t.baseUrl}/m/${encodeURIComponent(projectId)}${p}`;
  }

  /** Calls a mock path (as the code under test would). */
  mock(projectId: string, path: string, init: RequestInit & { session?: string } = {}): Promise<Response> {
    const { session, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (session !== undefined) headers.set(SESSION_HEADER, session);
    return this.t.fetch(this.mockUrl(projectId, path), { ...rest, headers });
  }

  /** Fluent endpoint and rule creation: `stub(pid).get('/users/:id').json({…}).create()`. */
  stub(projectId: string): StubBuilder {
    return new StubBuilder({ endpoints: this.endpoints, rules: this.rules }, projectId);
  }

  /**
   * Resolves when exactly `count` logged requests of the project match `filter`; otherwise rejects
   * with a VerificationError listing the nearest requests and how each differs (and, for a request
   * no endpoint took, the endpoints nearest to it).
   */
  async verify(projectId: string, filter: RequestFilter, count: number): Promise<void> {
    const { count: actual } = await this.requests.count(projectId, filter);
    if (actual === count) return;
    const { session, since } = filter;
    const candidates = await this.requests.find(projectId, {
      ...(session !== undefined ? { session } : {}),
      ...(since ? { since } : {}),
    });
    const ranked = candidates
      .map((e) => ({ e, diff: differences(e, filter) }))
      .sort((a, b) => a.diff.length - b.diff.length)
      .slice(0, 5);
    const lines = [`Expected ${count} request(s) matching ${JSON.stringify(filter)}, found ${actual}.`];
    if (ranked.length === 0) lines.push('No requests were logged.');
    else lines.push('Nearest requests:');
    for (const { e, diff } of ranked) {
      lines.push(
        `  ${e.method} ${e.path}${e.query ? `?${e.query}` : ''} → ${e.statusCode}${diff.length ? `  (${diff.join('; ')})` : '  (matches)'}`,
      );
      // a request no endpoint took: the endpoints it came close to, as its 404 named them
      const near = e.endpointId === null ? (e.nearest ?? []) : [];
      if (near.length > 0)
        lines.push(
          `    no endpoint matched; nearest: ${near.map((n) => `${n.method} ${n.path} (${n.why})`).join(', ')}`,
        );
    }
    throw new VerificationError(
      lines.join('\n'),
      count,
      actual,
      ranked.map((r) => r.e),
    );
  }

  /** A test's own session of a project: its mock calls, state and log apart from every other. */
  withSession(projectId: string, session = `test-${Math.random().toString(36).slice(2, 10)}`): SessionScope {
    return new SessionScope(this, projectId, session);
  }
}

export class SessionScope {
  constructor(
    readonly client: Mockyard,
    readonly projectId: string,
    readonly session: string,
  ) {}

  /** Headers to add to the code under test's requests. */
  get headers(): Record<string, string> {
    return { [SESSION_HEADER]: this.session };
  }

  mock(path: string, init: RequestInit = {}): Promise<Response> {
    return this.client.mock(this.projectId, path, { ...init, session: this.session });
  }

  count(filter: RequestFilter = {}): Promise<number> {
    return this.client.requests.count(this.projectId, { ...filter, session: this.session }).then((r) => r.count);
  }

  verify(filter: RequestFilter, count: number): Promise<void> {
    return this.client.verify(this.projectId, { ...filter, session: this.session }, count);
  }

  /** Forgets the session: its stored values, sequence positions, collection copies and log entries. */
  async cleanup(): Promise<void> {
    const { client: c, projectId: pid, session } = this;
    const q = { session };
    await c.storage.clear(pid, q);
    for (const e of await c.endpoints.list(pid)) {
      await c.endpoints.clearStorage(pid, e.id, q);
      for (const r of await c.rules.list(pid, e.id)) await c.rules.reset(pid, e.id, r.id, q);
    }
    for (const col of await c.collections.list(pid)) await c.collections.reset(pid, col.name, q);
    await c.requests.clear(pid, q);
  }
}

export type { HttpMethod };
