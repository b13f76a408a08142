/**
 * Validation beyond JSON Schema, and normalisation of request bodies into domain records with
 * their defaults. Every problem becomes one `details[]` item of a 400 validation_failed.
 */
import { type ValidationModes, validationModes } from './contract.js';
import { AppError } from './errors.js';
import { type GraphqlConfig, schemaProblem } from './graphql.js';
import {
  ACTION_TIMEOUT,
  type Action,
  type Condition,
  type DataBinding,
  type Endpoint,
  type HttpMethod,
  KEYED_TARGETS,
  LIMITS,
  METHODS,
  type OnError,
  type RuleResponse,
  type SequenceMode,
  type Step,
  type StorageScope,
  VALUED_OPERATORS,
} from './model.js';
import { routeKey, validatePattern } from './paths.js';

export * from './validate-project.js';

import { Problems } from './problems.js';
import { regexProblem } from './regex.js';
import type { Trigger } from './sockets.js';

/** Why a condition's value cannot be compiled (a regex that is invalid or too large), or null. */
const valueProblem = (c: Condition): string | null =>
  c.operator === 'matches_regex' ? (regexProblem(c.value ?? '')?.message ?? null) : null;

type Json = Record<string, unknown>;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What node cannot send in a header value: CR, LF, NUL, other controls, anything past Latin-1. */
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface EndpointInput {
  method: HttpMethod;
  path: string;
  routeKey: string;
  statusCode: number;
  responseBody: string;
  contentType: string;
  data: DataBinding | null;
  /** headers of the default answer (values are templates) */
  headers: Record<string, string>;
  validation: ValidationModes | null;
  channels: string[];
  graphql: GraphqlConfig | null;
}

/** Full endpoint fields from a create body, or from `current` patched by an update body. */
export function validateEndpoint(body: Json, current?: Endpoint): EndpointInput {
  const p = new Problems();
  const method = body.method !== undefined ? String(body.method).toUpperCase() : current?.method;
  if (method === undefined) p.add('/method', 'method is required');
  else if (!(METHODS as readonly string[]).includes(method))
    p.add('/method', `method must be one of ${METHODS.join(', ')}`);
  const path = body.path !== undefined ? String(body.path) : current?.path;
  if (path === undefined) p.add('/path', 'path is required');
  else {
    const why = validatePattern(path);
    if (why) p.add('/path', why);
  }
  const data = body.data !== undefined ? (body.data as DataBinding | null) : (current?.data ?? null);
  if (
    data &&
    data.operation !== 'list' &&
    data.operation !== 'create' &&
    path !== undefined &&
    !/(^|\/):[^/]+/.test(path)
  )
    p.add(
      '/data/operation',
      `operation ${data.operation} reads the id from the route's last parameter: the path has none`,
    );
  const headers = (body.headers as Record<string, string> | undefined) ?? current?.headers ?? {};
  checkHeaders(headers, '/headers', p);
  if (body.headers !== undefined) p.templates(headers, '/headers');
  if (typeof body.responseBody === 'string') p.templates(body.responseBody, '/responseBody');
  const graphql = body.graphql !== undefined ? (body.graphql as GraphqlConfig | null) : (current?.graphql ?? null);
  if (body.graphql) {
    const why = schemaProblem(graphql?.schema ?? '');
    if (why) p.add('/graphql/schema', `the schema is not valid GraphQL SDL: ${why}`);
  }
  let validation = current?.validation ?? null;
  if (body.validation !== undefined) {
    try {
      validation = body.validation === null ? null : validationModes(body.validation, '/validation');
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      for (const d of e.details ?? []) p.add(d.path, d.message);
    }
  }
  const contentType = body.contentType;
  if (typeof contentType === 'string' && UNSENDABLE.test(contentType))
    p.add('/contentType', 'contentType must be Latin-1 text without CR, LF, NUL or other control characters');
  p.throwIfAny();
  return {
    method: method as HttpMethod,
    path: path as string,
    routeKey: routeKey(path as string),
    statusCode: (body.statusCode as number | undefined) ?? current?.statusCode ?? 200,
    responseBody: (body.responseBody as string | undefined) ?? current?.responseBody ?? '',
    contentType: (body.contentType as string | undefined) ?? current?.contentType ?? 'application/json',
    data,
    headers,
    validation,
    channels: (body.channels as string[] | undefined) ?? current?.channels ?? [],
    graphql,
  };
}

// ------------------------------------------------------------------------------------------------
// rules

function checkHeaders(headers: Record<string, string>, at: string, p: Problems): void {
  for (const [k, v] of Object.entries(headers)) {
    if (!HEADER_NAME.test(k)) p.add(`${at}/${k}`, 'header names must be HTTP tokens (no spaces, CR or LF)');
    if (UNSENDABLE.test(v))
      p.add(`${at}/${k}`, 'header values must be Latin-1 text without CR, LF, NUL or other control characters');
  }
}

/** Options of validateRule for imports: a regex too large to match fast makes the rule inactive. */
export interface RuleImportOptions {
  /** called with the pointer of each condition whose regex is too large; the rule is then inactive */
  onHeavyRegex?: (at: string, message: string) => void;
  /** the rule is a WebSocket or GraphQL endpoint's: its steps need no statusCode (200 when absent) */
  statusOptional?: boolean;
}

function condition(raw: Json, at: string, p: Problems, opts: RuleImportOptions = {}): Condition {
  const c: Condition = { target: raw.target as Condition['target'], operator: raw.operator as Condition['operator'] };
  if (typeof raw.key === 'string') c.key = raw.key;
  if (raw.value !== undefined) c.value = typeof raw.value === 'number' ? String(raw.value) : (raw.value as string);
  if (KEYED_TARGETS.includes(c.target) && !c.key) p.add(`${at}/key`, `target ${c.target} needs a key`);
  if (!KEYED_TARGETS.includes(c.target) && c.key !== undefined) delete c.key;
  if (c.target === 'random') {
    const n = Number(c.value);
    if (c.operator !== 'less_than') p.add(`${at}/operator`, 'target random takes the operator less_than');
    else if (c.value === undefined || c.value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) {
      p.add(`${at}/value`, 'target random needs a value from 0 to 100 (a percentage)');
    }
    return c;
  }
  if (VALUED_OPERATORS.includes(c.operator)) {
    if (c.value === undefined) p.add(`${at}/value`, `operator ${c.operator} needs a value`);
    else if (c.operator === 'less_than' && (c.value.trim() === '' || !Number.isFinite(Number(c.value)))) {
      p.add(`${at}/value`, 'less_than needs a numeric value');
    } else {
      const problem = c.operator === 'matches_regex' ? regexProblem(c.value) : null;
      if (problem?.tooLarge && opts.onHeavyRegex) opts.onHeavyRegex(`${at}/value`, problem.message);
      else if (problem) p.add(`${at}/value`, problem.message);
    }
  } else {
    delete c.value;
  }
  return c;
}

function step(raw: Json): Step {
  const s: Step = {
    statusCode: (raw.statusCode as number | undefined) ?? 200,
    body: (raw.body as string | undefined) ?? '',
    headers: (raw.headers as Record<string, string> | undefined) ?? {},
    delayMs: (raw.delayMs as number | undefined) ?? 0,
    delayMaxMs: (raw.delayMaxMs as number | undefined) ?? 0,
    count: (raw.count as number | undefined) ?? 1,
  };
  if (raw.fault !== undefined) s.fault = raw.fault as Step['fault'];
  for (const k of ['events', 'repeat', 'keepOpen', 'chunks', 'llm', 'messages', 'close', 'graphql'] as const)
    if (raw[k] !== undefined) (s as Record<string, unknown>)[k] = raw[k];
  return s;
}

/** A step streams one way at most. */
function checkStream(st: Step, at: string, p: Problems): void {
  const ways = (['events', 'chunks', 'llm'] as const).filter((k) => st[k] !== undefined);
  if (ways.length > 1) p.add(at, `a step streams one way: ${ways.join(' and ')} are given`);
  if ((st.repeat !== undefined || st.keepOpen !== undefined) && st.events === undefined)
    p.add(at, 'repeat and keepOpen apply to events');
  if (st.chunks && st.chunks.size === undefined && st.chunks.count === undefined)
    p.add(`${at}/chunks`, 'chunks needs a size or a count');
}

function response(raw: Json | null, p: Problems): RuleResponse | null {
  if (raw === null) return null;
  const steps = (raw.steps as Json[]).map((s, i) => {
    const st = step(s);
    checkHeaders(st.headers, `/response/steps/${i}/headers`, p);
    checkStream(st, `/response/steps/${i}`, p);
    p.templates(st.body, `/response/steps/${i}/body`);
    p.templates(st.headers, `/response/steps/${i}/headers`);
    p.templates(
      st.events?.map((e) => ({ data: e.data })),
      `/response/steps/${i}/events`,
    );
    p.templates(st.llm?.text, `/response/steps/${i}/llm/text`);
    p.templates(
      st.messages?.map((m) => ({ body: m.body })),
      `/response/steps/${i}/messages`,
    );
    return st;
  });
  return { mode: ((raw.mode as SequenceMode | undefined) ?? 'loop') as SequenceMode, steps };
}

function action(raw: Json, at: string, p: Problems): Action {
  const type = raw.type as Action['type'];
  const onError = ((raw.onError as OnError | undefined) ?? 'continue') as OnError;
  // the schema has checked the fields of each type (a discriminated union); what is left is semantic
  if (type === 'http_request') {
    const method = ((raw.method as string | undefined) ?? 'GET').toUpperCase();
    if (!HTTP_TOKEN.test(method)) p.add(`${at}/method`, 'method must be an HTTP method name');
    const headers = (raw.headers as Record<string, string> | undefined) ?? {};
    checkHeaders(headers, `${at}/headers`, p);
    const a: Action = {
      type,
      url: (raw.url as string) ?? '',
      method,
      headers,
      body: (raw.body as string | undefined) ?? '',
      applyResponse: (raw.applyResponse as boolean | undefined) ?? false,
      timeoutMs: (raw.timeoutMs as number | undefined) ?? ACTION_TIMEOUT.default,
      onError,
    };
    if (raw.saveAs !== undefined) a.saveAs = raw.saveAs as string;
    return a;
  }
  if (type === 'broadcast')
    return { type, channel: raw.channel as string, body: (raw.body as string | undefined) ?? '', onError };
  const name = raw.name as string;
  if (type === 'set_variable') return { type, name, value: (raw.value as string | undefined) ?? '', onError };
  // scope is kept only when it is not the default (endpoint): earlier clients see the shape they knew
  const scope = raw.scope === 'project' ? { scope: 'project' as StorageScope } : {};
  if (type === 'delete_variable') return { type, name, ...scope, onError };
  return { type, name, value: (raw.value as string | undefined) ?? '', ...scope, onError };
}

export interface RuleInput {
  name: string;
  priority: number;
  active: boolean;
  conditions: Condition[];
  response: RuleResponse | null;
  actions: Action[];
  /** WebSocket endpoints: the trigger (absent: message) */
  on?: Trigger;
}

/** A rule's own fields (no id, state or times): what the API shows, exports carry and files sync. */
export const ruleFields = (r: RuleInput): RuleInput => ({
  name: r.name,
  priority: r.priority,
  active: r.active,
  conditions: r.conditions,
  response: r.response,
  actions: r.actions,
  ...(r.on ? { on: r.on } : {}),
});

/** Full rule fields from a create body, or from `current` patched by an update body. */
export function validateRule(body: Json, current?: RuleInput, opts: RuleImportOptions = {}): RuleInput {
  const p = new Problems();
  let heavy = false;
  const importing: RuleImportOptions = opts.onHeavyRegex
    ? {
        onHeavyRegex: (at, message) => {
          heavy = true;
          opts.onHeavyRegex?.(at, message);
        },
      }
    : {};
  let name = current?.name ?? '';
  if (body.name !== undefined || !current) {
    if (typeof body.name !== 'string') p.add('/name', 'name is required and must be a string');
    else if (body.name.trim().length < 1 || body.name.length > LIMITS.nameLength)
      p.add('/name', `name must be 1–${LIMITS.nameLength} characters`);
    else name = body.name;
  }
  const conditions =
    body.conditions !== undefined
      ? (body.conditions as Json[]).map((c, i) => condition(c, `/conditions/${i}`, p, importing))
      : (current?.conditions ?? []);
  const active = !heavy && ((body.active as boolean | undefined) ?? current?.active ?? true);
  if (active && body.conditions === undefined && current && !current.active) {
    // a rule imported inactive (its regex too large to match fast) is not switched on as it is
    for (const [i, c] of current.conditions.entries()) {
      const why = valueProblem(c);
      if (why) p.add(`/conditions/${i}/value`, why);
    }
  }
  if (opts.statusOptional !== true && body.response !== undefined && body.response !== null) {
    const steps = (body.response as Json).steps;
    if (Array.isArray(steps))
      steps.forEach((s, i) => {
        if (s !== null && typeof s === 'object' && (s as Json).statusCode === undefined)
          p.add(
            `/response/steps/${i}/statusCode`,
            'statusCode is required (only the steps of a WebSocket or GraphQL endpoint go without)',
          );
      });
  }
  const resp = body.response !== undefined ? response(body.response as Json | null, p) : (current?.response ?? null);
  const actions =
    body.actions !== undefined
      ? (body.actions as Json[]).map((a, i) => action(a, `/actions/${i}`, p))
      : (current?.actions ?? []);
  if (body.actions !== undefined)
    actions.forEach((a, i) => {
      if (a.type === 'http_request') p.templates({ url: a.url, body: a.body, headers: a.headers }, `/actions/${i}`);
      else if (a.type === 'broadcast') p.templates(a.body, `/actions/${i}/body`);
      else if (a.type !== 'delete_variable') p.templates(a.value, `/actions/${i}/value`);
    });
  const on = (body.on as Trigger | undefined) ?? current?.on;
  p.throwIfAny();
  return {
    name,
    priority: (body.priority as number | undefined) ?? current?.priority ?? 0,
    active,
    conditions,
    response: resp,
    actions,
    ...(on !== undefined && on !== 'message' ? { on } : {}),
  };
}
