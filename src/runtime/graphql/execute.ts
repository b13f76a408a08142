/**
 * GraphQL endpoints (docs/graphql.md): GraphQL over HTTP on the reference implementation. A query is
 * parsed and validated against the endpoint's schema; the answer's data is generated for exactly
 * the selection set (fragments, aliases, unions and interfaces, `__typename`: graphql's own
 * executor, with a field resolver that makes values by type and field name from the request's
 * random source, so `X-Mockyard-Seed` repeats them), or read from a bound collection of the
 * request's mock session.
 */
import type {
  DocumentNode,
  GraphQLAbstractType,
  GraphQLFieldResolver,
  GraphQLOutputType,
  GraphQLSchema,
  GraphQLTypeResolver,
} from 'graphql';
import type { CollectionCommand, CollectionResult } from '../../domain/collections.js';
import { type GraphqlBinding, type GraphqlConfig, graphqlLib } from '../../domain/graphql.js';
import { fakerPool } from '../faker.js';
import type { EvalContext, GraphqlRequestView, RequestView } from '../types.js';
import { type Makers, type Plan, planQuery, runPlan } from './plan.js';

export interface CompiledGraphql {
  readonly schema: GraphQLSchema;
  readonly bindings: ReadonlyMap<string, GraphqlBinding>;
  /** queries parsed and validated, by text: a client sends the same few over and over */
  readonly documents: Map<string, CheckedDocument>;
}

interface CheckedDocument {
  doc: DocumentNode;
  errors: unknown[];
  /** each operation's plan (plan.ts), by name ('' for the only one), null where the executor answers */
  plans?: Map<string, Plan | null>;
}

/** Queries kept parsed and validated per endpoint, and the longest one kept. */
const DOCUMENTS = 256;
const DOCUMENT_CHARS = 64 * 1024;

/** A request's query parsed and checked against the schema, from the endpoint's cache when it has it. */
export function checkedDocument(gql: CompiledGraphql, query: string, doc: DocumentNode): unknown[] {
  const hit = gql.documents.get(query);
  if (hit) return hit.errors;
  const errors = graphqlLib()
    .validate(gql.schema, doc)
    .map((e) => e.toJSON());
  if (query.length <= DOCUMENT_CHARS) {
    if (gql.documents.size >= DOCUMENTS) gql.documents.delete(gql.documents.keys().next().value as string);
    gql.documents.set(query, { doc, errors });
  }
  return errors;
}

export function compileGraphql(cfg: GraphqlConfig): CompiledGraphql | null {
  try {
    return {
      schema: graphqlLib().buildSchema(cfg.schema),
      bindings: new Map(Object.entries(cfg.bindings ?? {})),
      documents: new Map(),
    };
  } catch {
    return null;
  }
}

export interface GraphqlRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | undefined;
}

export type Parsed =
  | { ok: true; req: GraphqlRequest; doc: DocumentNode }
  | { ok: false; message: string; locations?: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The GraphQL request of a POST body (JSON, or `application/graphql`) or of GET's query string. */
export function readRequest(
  view: RequestView,
  json: () => { ok: true; value: unknown } | { ok: false },
  gql?: CompiledGraphql,
): Parsed {
  let req: GraphqlRequest;
  if (view.method === 'GET') {
    const q = new URLSearchParams(view.rawQuery);
    let variables: unknown = {};
    try {
      variables = JSON.parse(q.get('variables') || '{}');
    } catch {
      return { ok: false, message: 'variables is not JSON' };
    }
    req = {
      query: q.get('query') ?? '',
      variables: isObject(variables) ? variables : {},
      operationName: q.get('operationName') || undefined,
    };
  } else if ((view.header('content-type') ?? '').startsWith('application/graphql')) {
    req = { query: view.body, variables: {}, operationName: undefined };
  } else {
    const doc = json();
    if (!doc.ok || !isObject(doc.value))
      return { ok: false, message: 'the body must be a JSON object {query, variables?, operationName?}' };
    const b = doc.value;
    req = {
      query: typeof b.query === 'string' ? b.query : '',
      variables: isObject(b.variables) ? b.variables : {},
      operationName: typeof b.operationName === 'string' && b.operationName !== '' ? b.operationName : undefined,
    };
  }
  return parseOperation(req, gql);
}

/** A request's query parsed (no check against the schema yet). */
export function parseOperation(req: GraphqlRequest, gql?: CompiledGraphql): Parsed {
  if (req.query.trim() === '') return { ok: false, message: 'the request has no query' };
  const known = gql?.documents.get(req.query);
  if (known) return { ok: true, req, doc: known.doc };
  try {
    return { ok: true, req, doc: graphqlLib().parse(req.query) };
  } catch (e) {
    const err = e as { message: string; locations?: unknown };
    return { ok: false, message: err.message, locations: err.locations };
  }
}

/** What conditions read of it (operation name and type, variables, top-level fields). */
export function requestView(p: Parsed): GraphqlRequestView | null {
  if (!p.ok) return null;
  const ops = p.doc.definitions.filter((d) => d.kind === 'OperationDefinition');
  const op = (p.req.operationName ? ops.find((o) => o.name?.value === p.req.operationName) : ops[0]) ?? ops[0];
  if (op?.kind !== 'OperationDefinition') return null;
  return {
    operationName: op.name?.value ?? p.req.operationName,
    type: op.operation as GraphqlRequestView['type'],
    variables: p.req.variables,
    fields: op.selectionSet.selections.flatMap((s) => (s.kind === 'Field' ? [s.name.value] : [])),
  };
}

/** A collection operation of the request's session, for bindings. */
export type RunCollection = (collection: string, cmd: CollectionCommand) => Promise<CollectionResult>;

/** Publishes a bound collection's write to the subscriptions of the session (subscriptions.ts). */
export type Publish = (collection: string, operation: string, item: unknown) => void;

interface Context {
  ctx: EvalContext;
  run: RunCollection;
  bindings: ReadonlyMap<string, GraphqlBinding>;
  publish?: Publish;
}

const STRINGS: [RegExp, string][] = [
  [/^(e?mail|emailAddress)$/i, 'internet.email'],
  [/^(first_?name|given_?name)$/i, 'person.firstName'],
  [/^(last_?name|family_?name|surname)$/i, 'person.lastName'],
  [/^(full_?name|name|user_?name|display_?name|author)$/i, 'person.fullName'],
  [/^(title|headline)$/i, 'lorem.sentence'],
  [/^(description|body|text|content|bio|summary)$/i, 'lorem.paragraph'],
  [/(url|link|website|avatar|image)$/i, 'internet.url'],
  [/^(city|town)$/i, 'location.city'],
  [/^(country)$/i, 'location.country'],
  [/^(street|address)$/i, 'location.streetAddress'],
  [/(phone|mobile)/i, 'phone.number'],
  [/^(company|organization)$/i, 'company.name'],
  [/(date|At|time)$/, 'date.recent'],
];

/** The faker method of a field name (STRINGS), found once per name. */
const methodOf = new Map<string, string | null>();
function stringMethod(field: string): string | null {
  let m = methodOf.get(field);
  if (m === undefined) {
    m = STRINGS.find(([re]) => re.test(field))?.[1] ?? null;
    if (methodOf.size < 10_000) methodOf.set(field, m);
  }
  return m;
}

function scalar(name: string, field: string, c: Context): unknown {
  const { ctx } = c;
  switch (name) {
    case 'ID':
      return ctx.uuid();
    case 'Int':
      return Math.floor(ctx.rng() * 1000);
    case 'Float':
      return Math.round(ctx.rng() * 100_000) / 100;
    case 'Boolean':
      return ctx.rng() < 0.5;
    case 'DateTime':
    case 'Date':
      return new Date(ctx.now() - Math.floor(ctx.rng() * 30 * 86_400_000))
        .toISOString()
        .slice(0, name === 'Date' ? 10 : 24);
    default: {
      const rule = stringMethod(field);
      const pool = rule ? fakerPool(rule) : [];
      return pool.length > 0 ? pool[Math.floor(ctx.rng() * pool.length)] : `${field}-${Math.floor(ctx.rng() * 1000)}`;
    }
  }
}

function mock(type: GraphQLOutputType, field: string, c: Context): unknown {
  const g = graphqlLib();
  const t = g.getNullableType(type) as GraphQLOutputType;
  if (g.isListType(t)) return [0, 1, 2].map(() => mock(t.ofType, field, c));
  if (g.isEnumType(t)) {
    const values = t.getValues();
    return values[Math.floor(c.ctx.rng() * values.length)]?.value;
  }
  if (g.isScalarType(t)) return scalar(t.name, field, c);
  return {};
}

const item = (raw: unknown) => (typeof raw === 'string' ? JSON.parse(raw) : raw);

async function bound(
  b: GraphqlBinding,
  args: Record<string, unknown>,
  type: GraphQLOutputType,
  c: Context,
): Promise<unknown> {
  const id = String(args[b.idArg ?? 'id'] ?? '');
  const input = args[b.inputArg ?? 'input'];
  const body = isObject(input) ? input : {};
  const g = graphqlLib();
  let res: CollectionResult;
  switch (b.operation) {
    case 'list':
      res = await c.run(b.collection, { op: 'list' });
      break;
    case 'get':
      res = await c.run(b.collection, { op: 'get', id });
      break;
    case 'create':
      res = await c.run(b.collection, { op: 'create', item: body });
      break;
    case 'update':
      res = await c.run(b.collection, { op: 'update', id, patch: body });
      break;
    case 'replace':
      res = await c.run(b.collection, { op: 'replace', id, item: body });
      break;
    case 'delete': {
      const before = await c.run(b.collection, { op: 'get', id });
      res = await c.run(b.collection, { op: 'delete', id });
      if (res.kind === 'deleted') {
        c.publish?.(b.collection, 'delete', before.kind === 'item' ? before.item : { id });
        if (g.isScalarType(g.getNullableType(type))) return true;
        return before.kind === 'item' ? before.item : null;
      }
      break;
    }
  }
  if (res.kind === 'items') return res.raw.map(item);
  if (res.kind === 'item') {
    if (b.operation !== 'get') c.publish?.(b.collection, b.operation, res.item);
    return res.item;
  }
  if (res.kind === 'missing') return g.isScalarType(g.getNullableType(type)) ? false : null;
  throw new Error(
    res.kind === 'too_large' ? res.message : `the ${b.operation} of ${b.collection} failed (${res.kind})`,
  );
}

const fieldResolver: GraphQLFieldResolver<unknown, Context> = (source, args, c, info) => {
  // a subscription's bindings say where its events come from (subscriptions.ts), not what to run
  const binding =
    info.parentType.name === 'Subscription' ? undefined : c.bindings.get(`${info.parentType.name}.${info.fieldName}`);
  if (binding) return bound(binding, args, info.returnType, c);
  if (isObject(source) && Object.hasOwn(source, info.fieldName)) return source[info.fieldName];
  return mock(info.returnType, info.fieldName, c);
};

const typeResolver: GraphQLTypeResolver<unknown, Context> = (value, c, info, abstract: GraphQLAbstractType) => {
  if (isObject(value) && typeof value.__typename === 'string') return value.__typename;
  const types = info.schema.getPossibleTypes(abstract);
  return types[Math.floor(c.ctx.rng() * types.length)]?.name;
};

export interface GraphqlAnswer {
  status: number;
  contentType: string;
  /** the answer as a value (merged with a rule step's graphql before it is written) */
  result: { data?: unknown; errors?: unknown[] };
}

/** Runs an operation (data generated and bound; `rootValue`: a subscription event's field values). */
export async function execution(
  gql: CompiledGraphql,
  doc: DocumentNode,
  req: GraphqlRequest,
  ctx: EvalContext,
  run: RunCollection,
  rootValue?: Record<string, unknown>,
  publish?: Publish,
): Promise<GraphqlAnswer['result']> {
  if (rootValue === undefined) {
    const plan = planOf(gql, req, doc);
    if (plan) {
      const c: Context = { ctx, run, bindings: gql.bindings, publish };
      const makers: Makers = {
        scalar: (name, field) => scalar(name, field, c),
        pick: (n) => Math.floor(ctx.rng() * n),
      };
      const data = runPlan(gql.schema, plan, req.variables, makers);
      if (data !== null) return { data };
    }
  }
  const result = await graphqlLib().execute({
    schema: gql.schema,
    document: doc,
    rootValue,
    variableValues: req.variables,
    operationName: req.operationName,
    contextValue: { ctx, run, bindings: gql.bindings, publish } satisfies Context,
    fieldResolver,
    typeResolver,
  });
  const out: GraphqlAnswer['result'] = {};
  if (result.errors) out.errors = result.errors.map((e) => e.toJSON());
  if (result.data !== undefined) out.data = result.data;
  return out;
}

/** The plan of a request's operation, made once per document kept (documents); null: the executor answers. */
function planOf(gql: CompiledGraphql, req: GraphqlRequest, doc: DocumentNode): Plan | null {
  const kept = gql.documents.get(req.query);
  if (!kept || kept.doc !== doc || kept.errors.length > 0) return null;
  kept.plans ??= new Map();
  const name = req.operationName ?? '';
  let plan = kept.plans.get(name);
  if (plan === undefined) {
    plan = planQuery(gql.schema, doc, req.operationName, (t, f) => gql.bindings.has(`${t}.${f}`));
    if (kept.plans.size < 16) kept.plans.set(name, plan);
  }
  return plan;
}

/** Answers a GraphQL request: a parse or validation error, or generated and bound data. */
export async function answerGraphql(
  gql: CompiledGraphql,
  view: RequestView,
  ctx: EvalContext,
  run: RunCollection,
  publish?: Publish,
): Promise<GraphqlAnswer> {
  const _g = graphqlLib();
  const accept = view.header('accept') ?? '';
  // GraphQL over HTTP: a client that takes only the new media type gets 4xx for a request error
  const strict = accept.includes('application/graphql-response+json') && !accept.includes('application/json');
  const contentType = strict ? 'application/graphql-response+json' : 'application/json';
  const bad = (errors: unknown[]): GraphqlAnswer => ({ status: strict ? 400 : 200, contentType, result: { errors } });
  const parsed = readRequest(view, () => ctx.json(), gql);
  if (!parsed.ok)
    return bad([{ message: parsed.message, ...(parsed.locations ? { locations: parsed.locations } : {}) }]);
  const problems = checkedDocument(gql, parsed.req.query, parsed.doc);
  if (problems.length > 0) return bad(problems);
  const op = requestView(parsed);
  if (view.method === 'GET' && op?.type !== 'query')
    return bad([{ message: 'GET takes queries only; send mutations with POST' }]);
  return {
    status: 200,
    contentType,
    result: await execution(gql, parsed.doc, parsed.req, ctx, run, undefined, publish),
  };
}

/** A rule step's `graphql: {data, errors}` over the generated answer: objects merged deeply, the rest replaced. */
export function mergeAnswer(
  base: GraphqlAnswer['result'],
  over: { data?: unknown; errors?: unknown[] },
): GraphqlAnswer['result'] {
  const merge = (a: unknown, b: unknown): unknown => {
    if (!isObject(a) || !isObject(b)) return b;
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) if (k !== '__proto__' && k !== 'constructor') out[k] = merge(a[k], v);
    return out;
  };
  const out: GraphqlAnswer['result'] = { ...base };
  if (over.data !== undefined) out.data = merge(base.data, over.data);
  if (over.errors !== undefined) out.errors = [...(base.errors ?? []), ...over.errors];
  return out;
}
