/**
 * A resolved OpenAPI document → its operations, matched by method and path template (docs/contract.md).
 * Each operation's checks (parameters, body, security, answers) are built on its first request and
 * kept with the compiled project: never per request.
 */
import { compileSchema, type SchemaCheck } from './schema.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface ParamCheck {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly style: string;
  readonly explode: boolean;
  /** the schema's type and its items' type, for reading text as values */
  readonly type: string | undefined;
  readonly itemType: string | undefined;
  readonly check: SchemaCheck | null;
}

export interface MediaCheck {
  readonly type: string;
  readonly check: SchemaCheck | null;
  /** property types of a form body's schema */
  readonly fields: Record<string, { type?: string; itemType?: string }>;
}

export interface SecurityScheme {
  readonly kind: 'apiKey' | 'http' | 'oauth2' | 'openIdConnect' | 'other';
  readonly in?: string;
  readonly name?: string;
  readonly scheme?: string;
}

export interface ResponseCheck {
  readonly media: MediaCheck[];
  readonly requiredHeaders: string[];
}

export interface OperationChecks {
  readonly params: ParamCheck[];
  readonly body: { readonly required: boolean; readonly media: MediaCheck[] } | null;
  /** alternatives, each a list of schemes that must all be present; null or [] with an empty one: none needed */
  readonly security: SecurityScheme[][] | null;
  readonly responses: Map<string, ResponseCheck>;
}

export interface Operation {
  readonly method: string;
  readonly template: string;
  readonly id: string;
  readonly segments: readonly (string | { param: string })[];
  checks(): OperationChecks;
}

export interface CompiledContract {
  readonly format: string;
  readonly operations: readonly Operation[];
  /** the path prefix of `servers[0].url`, optional in mock paths ('' for none) */
  readonly basePath: string;
  match(method: string, path: string): { op: Operation; params: Record<string, string> } | null;
  /** `GET /pets/{petId}` of a method and mock path pattern (`/pets/:id`), or null */
  operationFor(method: string, pattern: string): Operation | null;
}

const schemaType = (s: unknown): string | undefined => {
  if (!isObject(s)) return undefined;
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null') as string | undefined;
  return undefined;
};

function media(content: unknown, dir: 'request' | 'response', v30: boolean): MediaCheck[] {
  if (!isObject(content)) return [];
  return Object.entries(content).map(([type, m]) => {
    const schema = isObject(m) ? m.schema : undefined;
    const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
    const fields = Object.fromEntries(
      Object.entries(props).map(([k, p]) => [
        k,
        { type: schemaType(p), itemType: isObject(p) ? schemaType(p.items) : undefined },
      ]),
    );
    return { type: type.toLowerCase(), check: schema === undefined ? null : compileSchema(schema, dir, v30), fields };
  });
}

function buildChecks(doc: Json, pathItem: Json, op: Json, v30: boolean): OperationChecks {
  const byKey = new Map<string, Json>();
  for (const p of [
    ...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
    ...(Array.isArray(op.parameters) ? op.parameters : []),
  ])
    if (isObject(p) && typeof p.name === 'string' && typeof p.in === 'string')
      byKey.set(`${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`, p);
  const params: ParamCheck[] = [];
  for (const p of byKey.values()) {
    const place = p.in as ParamCheck['in'];
    if (!['path', 'query', 'header', 'cookie'].includes(place)) continue;
    const name = p.name as string;
    // Accept, Content-Type and Authorization are described elsewhere (OpenAPI ignores them as parameters)
    if (place === 'header' && ['accept', 'content-type', 'authorization'].includes(name.toLowerCase())) continue;
    const style = typeof p.style === 'string' ? p.style : place === 'query' || place === 'cookie' ? 'form' : 'simple';
    const schema =
      p.schema ?? (isObject(p.content) ? (Object.values(p.content)[0] as Json | undefined)?.schema : undefined);
    params.push({
      name,
      in: place,
      required: place === 'path' || p.required === true,
      style,
      explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
      type: schemaType(schema),
      itemType: isObject(schema) ? schemaType(schema.items) : undefined,
      check: schema === undefined ? null : compileSchema(schema, 'request', v30),
    });
  }
  const rb = isObject(op.requestBody) ? op.requestBody : null;
  const schemes =
    isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const reqs = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : null;
  const security =
    reqs === null
      ? null
      : reqs.filter(isObject).map((r) =>
          Object.keys(r).map((name): SecurityScheme => {
            const s = schemes[name];
            if (!isObject(s)) return { kind: 'other' };
            const kind = ['apiKey', 'http', 'oauth2', 'openIdConnect'].includes(s.type as string)
              ? (s.type as SecurityScheme['kind'])
              : 'other';
            return {
              kind,
              in: s.in as string | undefined,
              name: s.name as string | undefined,
              scheme: (s.scheme as string | undefined)?.toLowerCase(),
            };
          }),
        );
  const responses = new Map<string, ResponseCheck>();
  if (isObject(op.responses))
    for (const [status, r] of Object.entries(op.responses)) {
      if (!isObject(r)) continue;
      const headers = isObject(r.headers) ? r.headers : {};
      responses.set(status.toUpperCase(), {
        media: media(r.content, 'response', v30),
        requiredHeaders: Object.entries(headers)
          .filter(([, h]) => isObject(h) && h.required === true)
          .map(([k]) => k.toLowerCase()),
      });
    }
  return {
    params,
    body: rb ? { required: rb.required === true, media: media(rb.content, 'request', v30) } : null,
    security,
    responses,
  };
}

function basePathOf(doc: Json): string {
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  const url = isObject(servers[0]) && typeof servers[0].url === 'string' ? servers[0].url : '';
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/\{[^}]*\}/g, '');
  return path === '/' ? '' : path.replace(/\/+$/, '');
}

export function compileContract(format: string, doc: Json): CompiledContract {
  const v30 = typeof doc.openapi !== 'string' || doc.openapi.startsWith('3.0');
  const ops: Operation[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [template, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!isObject(op)) continue;
      let made: OperationChecks | null = null;
      ops.push({
        method: m.toUpperCase(),
        template,
        id: `${m.toUpperCase()} ${template}`,
        segments: template
          .split('/')
          .filter(Boolean)
          .map((s) => (/^\{[^}]+\}$/.test(s) ? { param: s.slice(1, -1) } : s)),
        checks: () => {
          made ??= buildChecks(doc, item, op, v30);
          return made;
        },
      });
    }
  }
  // literal segments before parameters: /pets/mine before /pets/{id}
  ops.sort((a, b) => literalRank(b) - literalRank(a));
  const basePath = basePathOf(doc);
  const matchPath = (method: string, path: string) => {
    const segs = path.split('/').filter(Boolean);
    for (const op of ops) {
      if (op.method !== method || op.segments.length !== segs.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segs.length && ok; i++) {
        const s = op.segments[i];
        if (typeof s === 'string') ok = s === segs[i];
        else params[s.param] = safeDecode(segs[i]);
      }
      if (ok) return { op, params };
    }
    return null;
  };
  return {
    format,
    operations: ops,
    basePath,
    match(method, path) {
      const m = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
      for (const x of m) {
        const found = matchPath(x, path);
        if (found) return found;
        if (basePath !== '' && path.startsWith(`${basePath}/`)) {
          const inner = matchPath(x, path.slice(basePath.length));
          if (inner) return inner;
        }
      }
      return null;
    },
    operationFor(method, pattern) {
      const segs = pattern.split('/').filter(Boolean);
      const strip =
        basePath !== '' && pattern.startsWith(`${basePath}/`) ? basePath.split('/').filter(Boolean).length : 0;
      for (const from of strip > 0 ? [0, strip] : [0]) {
        const want = segs.slice(from);
        const op = ops.find(
          (o) =>
            o.method === method &&
            o.segments.length === want.length &&
            o.segments.every((s, i) => (typeof s === 'string' ? s === want[i] : want[i].startsWith(':'))),
        );
        if (op) return op;
      }
      return null;
    },
  };
}

const literalRank = (op: Operation) =>
  op.segments.reduce<number>((n, s, i) => n + (typeof s === 'string' ? 2 ** (16 - Math.min(i, 16)) : 0), 0);

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
