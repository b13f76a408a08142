/**
 * The domain's enumerations and limits: plain values with no dependency, shared by the server and
 * the dashboard (web/ imports them from here; nothing is copied).
 */

/** `unlimited` is for self-hosted services (MOCKYARD_DEFAULT_PLAN) and `serve --file`. */
export const PLANS = ['free', 'pro', 'business', 'unlimited'] as const;
export type Plan = (typeof PLANS)[number];

/** Rules per endpoint for each plan (docs/limits.md). */
export const RULE_LIMITS: Record<Plan, number> = { free: 3, pro: 15, business: 25, unlimited: 1_000_000 };

/** The smallest plan that allows `rules` rules per endpoint (for "which plan lifts it"). */
export const planFor = (rules: number): Plan => PLANS.find((p) => RULE_LIMITS[p] >= rules) ?? 'unlimited';

/** What an import reports it read (docs/interop.md). */
export const IMPORT_FORMATS = [
  'openapi',
  'swagger',
  'wiremock',
  'mockoon',
  'postman',
  'har',
  'mockyard',
  'graphql',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** HTTP methods, and `WS`: an endpoint that answers a WebSocket upgrade (docs/websocket.md). */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'WS'] as const;
export type HttpMethod = (typeof METHODS)[number];

export const CONDITION_TARGETS = [
  'method',
  'path',
  'header',
  'query',
  'url',
  'query_string',
  'body',
  'body_json',
  'random',
  'endpoint',
  'project',
  'vars',
  'graphql_operation',
  'graphql_type',
  'graphql_variable',
  'graphql_field',
] as const;
export type ConditionTarget = (typeof CONDITION_TARGETS)[number];
/** Targets that read a named value and so need `key`. */
export const KEYED_TARGETS: readonly ConditionTarget[] = [
  'header',
  'query',
  'body_json',
  'endpoint',
  'project',
  'vars',
  'graphql_variable',
  'graphql_field',
];

/** What an endpoint bound to a collection does (docs/stateful-mocks.md). */
export const COLLECTION_OPERATIONS = ['list', 'get', 'create', 'replace', 'update', 'delete'] as const;
export type CollectionOperation = (typeof COLLECTION_OPERATIONS)[number];
/** A collection's name: 1–64 of letters, digits, `_` and `-`. */
export const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Where `store_variable` and `delete_variable` keep a value (docs/stateful-mocks.md). */
export const STORAGE_SCOPES = ['endpoint', 'project'] as const;
export type StorageScope = (typeof STORAGE_SCOPES)[number];

export const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'matches_regex',
  'exists',
  'not_exists',
  'less_than',
] as const;
export type Operator = (typeof OPERATORS)[number];
/** Operators that test presence only and take no `value`. */
export const VALUELESS_OPERATORS: readonly Operator[] = ['exists', 'not_exists'];
/** Operators that compare against `value` and so need one: every other operator. */
export const VALUED_OPERATORS: readonly Operator[] = OPERATORS.filter((o) => !VALUELESS_OPERATORS.includes(o));

export const FAULTS = ['connection_reset', 'empty_response', 'malformed_body'] as const;
export type Fault = (typeof FAULTS)[number];

export const SEQUENCE_MODES = ['loop', 'hold_last'] as const;
export type SequenceMode = (typeof SEQUENCE_MODES)[number];

export const ON_ERROR = ['continue', 'stop'] as const;
export type OnError = (typeof ON_ERROR)[number];

export const ACTION_TYPES = ['set_variable', 'store_variable', 'delete_variable', 'http_request', 'broadcast'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** Resource limits on rule contents (docs/limits.md). */
export const LIMITS = {
  conditionsPerRule: 50,
  stepsPerRule: 100,
  actionsPerRule: 20,
  headersPerStep: 50,
  nameLength: 100,
  keyLength: 256,
  valueLength: 64 * 1024,
  bodyLength: 512 * 1024,
  urlLength: 8 * 1024,
  maxDelayMs: 60_000,
  maxCount: 1_000_000,
  maxPriority: 1_000_000_000,
  contentTypeLength: 255,
  pathLength: 2048,
} as const;

/** An action's timeout: default and maximum, ms (docs/api.md "Rules"). */
export const ACTION_TIMEOUT = { default: 5000, max: 10_000 } as const;

/** Caps on what one mock request can make the server produce or keep (docs/limits.md). */
export interface Caps {
  /** characters of one rendered template (body, header, action value, URL) */
  renderChars: number;
  /** bytes of one stored value (UTF-8) */
  storedValueBytes: number;
  /** stored names per endpoint (or project) and session */
  storedNames: number;
  /** mock sessions remembered per project */
  sessionsPerProject: number;
  /** loop iterations one template render may run (docs/templates.md "Caps") */
  templateIterations: number;
  /** WebSocket mocks (docs/websocket.md): bytes of one message, open sockets per project, idle ms */
  wsMessageBytes: number;
  socketsPerProject: number;
  wsIdleMs: number;
}

export const DEFAULT_CAPS: Caps = {
  renderChars: 1024 * 1024,
  storedValueBytes: 64 * 1024,
  storedNames: 1000,
  sessionsPerProject: 10_000,
  templateIterations: 10_000,
  wsMessageBytes: 1024 * 1024,
  socketsPerProject: 1000,
  wsIdleMs: 10 * 60_000,
};

/** How an SSE stream may end early (docs/streams.md). */
export const STREAM_FAULTS = ['connection_reset', 'stall'] as const;
/** The LLM wire formats an `llm` step speaks (docs/streams.md). */
export const LLM_PROVIDERS = ['openai.chat', 'openai.responses', 'anthropic.messages'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];
