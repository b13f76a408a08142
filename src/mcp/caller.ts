/**
 * How the MCP tools reach the service: every tool is a call of the REST API (the same routes, guards,
 * validation and errors as any client), made in-process on the HTTP transport (`/mcp`, Fastify's
 * inject with the caller's own Authorization) or over HTTP on stdio (`mockyard mcp`, MOCKYARD_URL
 * and MOCKYARD_TOKEN). Mock requests (`send_test_request`) go to the service's mock URLs.
 */

export interface ApiAnswer {
  status: number;
  /** the parsed JSON body, or undefined */
  json: unknown;
}

export interface MockAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ApiCaller {
  /** one management API call, authenticated as the MCP client */
  api(method: string, path: string, body?: unknown, contentType?: string): Promise<ApiAnswer>;
  /** one mock request to `/m/<projectId><path>` */
  mock(
    projectId: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<MockAnswer>;
}

const parse = (text: string): unknown => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

const payload = (body: unknown) =>
  body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);

/** A mock request over HTTP to `base` (the service's address). */
export async function mockOverHttp(
  base: string,
  projectId: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<MockAnswer> {
  const res = await fetch(`${base}/m/${encodeURIComponent(projectId)}${path.startsWith('/') ? path : `/${path}`}`, {
    method,
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
    signal: AbortSignal.timeout(30_000),
  });
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    out[k] = v;
  });
  return { status: res.status, headers: out, body: await res.text() };
}

/** The caller of `mockyard mcp`: the REST API of a running service, with a token. */
export function httpCaller(base: string, token: string): ApiCaller {
  return {
    async api(method, path, body, contentType = 'application/json') {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = contentType;
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        body: payload(body),
        signal: AbortSignal.timeout(120_000),
      });
      return { status: res.status, json: parse(await res.text()) };
    },
    mock: (projectId, method, path, headers, body) => mockOverHttp(base, projectId, method, path, headers, body),
  };
}

/** Fastify's inject, as far as the caller needs it. */
export interface Injector {
  inject(opts: {
    method: string;
    url: string;
    headers: Record<string, string>;
    payload?: string;
  }): Promise<{ statusCode: number; body: string }>;
}

/** The caller of `/mcp`: the same Fastify app in-process, with the MCP request's Authorization. */
export function injectCaller(app: Injector, authorization: string, mockBase: string): ApiCaller {
  return {
    async api(method, path, body, contentType = 'application/json') {
      const headers: Record<string, string> = { authorization, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = contentType;
      const res = await app.inject({ method, url: path, headers, payload: payload(body) });
      return { status: res.statusCode, json: parse(res.body) };
    },
    mock: (projectId, method, path, headers, body) => mockOverHttp(mockBase, projectId, method, path, headers, body),
  };
}
