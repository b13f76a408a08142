/**
 * The Mockyard domain model as plain types. Records are what the store keeps and the API returns
 * (times as ISO 8601 strings). Conditions, steps and actions are discriminated by `target`/`type`.
 */

export const PLANS = ['free', 'pro', 'business'] as const;
export type Plan = (typeof PLANS)[number];

/** Rules per endpoint for each plan (CONTRACT §8). */
export const RULE_LIMITS: Record<Plan, number> = { free: 3, pro: 15, business: 25 };

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof METHODS)[number];

export interface User {
  id: string;
  email: string;
  plan: Plan;
  createdAt: string;
}

export interface Project {
  id: string;
  name: string;
  /** Where mock requests with no matching endpoint are forwarded (empty: none). */
  fallbackUrl: string | null;
  /** DNS label unique across the service: the mock host is `<slug>.<MOCKYARD_MOCK_DOMAIN>` (CONTRACT §9) */
  slug: string;
  createdAt: string;
  updatedAt: string;
}

export interface Endpoint {
  id: string;
  projectId: string;
  method: HttpMethod;
  path: string;
  statusCode: number;
  responseBody: string;
  contentType: string;
  createdAt: string;
  updatedAt: string;
}

export const CONDITION_TARGETS = ['method', 'path', 'header', 'query', 'body', 'body_json', 'random'] as const;
export type ConditionTarget = (typeof CONDITION_TARGETS)[number];
/** Targets that read a named value and so need `key`. */
export const KEYED_TARGETS: readonly ConditionTarget[] = ['header', 'query', 'body_json'];

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
/** Operators that compare against `value` and so need one. */
export const VALUED_OPERATORS: readonly Operator[] = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'matches_regex',
  'less_than',
];

export interface Condition {
  target: ConditionTarget;
  key?: string;
  operator: Operator;
  value?: string;
}

export const FAULTS = ['connection_reset', 'empty_response', 'malformed_body'] as const;
export type Fault = (typeof FAULTS)[number];

export interface Step {
  statusCode: number;
  body: string;
  headers: Record<string, string>;
  delayMs: number;
  delayMaxMs: number;
  count: number;
  /** Instead of an answer, fail the connection in this way (after the delay). */
  fault?: Fault;
}

export const SEQUENCE_MODES = ['loop', 'hold_last'] as const;
export type SequenceMode = (typeof SEQUENCE_MODES)[number];

export interface RuleResponse {
  mode: SequenceMode;
  steps: Step[];
}

export type OnError = 'continue' | 'stop';

export interface SetVariableAction {
  type: 'set_variable';
  name: string;
  value: string;
  onError: OnError;
}
export interface StoreVariableAction {
  type: 'store_variable';
  name: string;
  value: string;
  onError: OnError;
}
export interface HttpRequestAction {
  type: 'http_request';
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  applyResponse: boolean;
  timeoutMs: number;
  /** Keep the answer as {{vars.NAME.status|headers.X|body|body.PATH}}. */
  saveAs?: string;
  onError: OnError;
}
export type Action = SetVariableAction | StoreVariableAction | HttpRequestAction;
export const ACTION_TYPES = ['set_variable', 'store_variable', 'http_request'] as const;

export interface SequenceState {
  step: number;
  served: number;
}

export interface Rule {
  id: string;
  endpointId: string;
  name: string;
  priority: number;
  active: boolean;
  conditions: Condition[];
  response: RuleResponse | null;
  actions: Action[];
  state: SequenceState;
  createdAt: string;
  updatedAt: string;
}

/** A rule as stored, without the derived state (the store keeps a hit counter instead). */
export type RuleRecord = Omit<Rule, 'state'> & { projectId: string; hits: number };

export interface ActionOutcome {
  type: Action['type'];
  ok: boolean;
  error?: string;
}

/** Why a rule did or did not answer, for the request log. */
export interface RuleTrace {
  ruleId: string;
  name: string;
  matched: boolean;
  /** Index of the first condition that failed, when not matched. */
  failedCondition?: number;
  reason?: string;
}

export interface RequestLogEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
  endpointId: string | null;
  ruleId: string | null;
  statusCode: number;
  durationMs: number;
  actions: ActionOutcome[];
  rules: RuleTrace[];
  proxied?: boolean;
  session?: string;
  /** why the answer is an error of the service's own (e.g. `render_too_large`, CONTRACT §10) */
  error?: string;
}
