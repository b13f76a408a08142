/**
 * The client's transport: one `fetch` per call, bearer token, JSON in and out, and errors in the
 * contract's shape raised as MockyardError. Every management call goes through `route()`, which
 * carries its OpenAPI route ("GET /api/projects/{id}") on the function: the coverage test compares
 * those routes with /api/openapi.json, so the client cannot drift from the server unnoticed.
 */

export type Query = Record<string, string | number | boolean | undefined>;

export interface Transport {
  baseUrl: string;
  token?: string;
  fetch: typeof fetch;
}

/** An answer that is not 2xx: `{error: {code, message, details?}}` of the service. */
export class MockyardError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'MockyardError';
  }
}

export async function send<T>(
  t: Transport,
  method: string,
  path: string,
  body?: unknown,
  query?: Query,
  headers: Record<string, string> = {},
): Promise<T> {
  const url = new URL(path, t.baseUrl.endsWith('/') ? t.baseUrl : `${t.baseUrl}/`);
  url.pathname = path;
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const h: Record<string, string> = { accept: 'application/json', ...headers };
  if (t.token) h.authorization = `Bearer ${t.token}`;
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    h['content-type'] ??= 'application/json';
  }
  const res = await t.fetch(url, { method, headers: h, body: payload });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = text;
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; details?: { path: string; message: string }[] } })
      ?.error;
    throw new MockyardError(
      res.status,
      err?.code ?? 'http_error',
      err?.message ?? text.slice(0, 200),
      err?.details ?? [],
    );
  }
  return json as T;
}

/**
 * A client method for one route: its path parameters first, then (`body: true`) the body, then
 * the query. The resource interfaces (resources.ts) give each one its types.
 */
// biome-ignore lint/suspicious/noExplicitAny: typed by the resource interface it is assigned to
export function route(t: Transport, method: string, template: string, opts: { body?: boolean } = {}): any {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const fn = async (...args: unknown[]) => {
    let path = template;
    for (let i = 0; i < names.length; i++) path = path.replace(`{${names[i]}}`, encodeURIComponent(String(args[i])));
    const body = opts.body ? args[names.length] : undefined;
    const query = (opts.body ? args[names.length + 1] : args[names.length]) as Query | undefined;
    return send(t, method, path, body, query);
  };
  Object.defineProperty(fn, 'route', { value: `${method} ${template}`, enumerable: false });
  return fn;
}

/** Every route a client object (and its nested resource groups) can call. */
export function routesOf(obj: object, seen = new Set<object>()): string[] {
  if (seen.has(obj)) return [];
  seen.add(obj);
  const out: string[] = [];
  for (const v of Object.values(obj)) {
    if (typeof v === 'function' && typeof (v as { route?: unknown }).route === 'string')
      out.push((v as { route: string }).route);
    else if (v !== null && typeof v === 'object') out.push(...routesOf(v, seen));
  }
  return out;
}
