/** Wire shapes of the Mockyard management API (CONTRACT.md). */

export type Plan = 'free' | 'pro' | 'business';
export const RULE_LIMITS: Record<Plan, number> = { free: 3, pro: 15, business: 25 };

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof METHODS)[number];

export interface User {
  id: string;
  email: string;
  plan: Plan;
  createdAt: string;
}

export interface AuthAnswer {
  token: string;
  user: User;
}

export interface Project {
  id: string;
  name: string;
  fallbackUrl: string | null;
  /** the project's mock-host label (`<slug>.<MOCKYARD_MOCK_DOMAIN>`) */
  slug: string;
  /** `/m/<id>`, or the absolute mock-host URL when the server has a mock domain */
  mockUrl: string;
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
  rules?: Rule[];
}

export const CONDITION_TARGETS = ['method', 'path', 'header', 'query', 'body', 'body_json', 'random'] as const;
export type ConditionTarget = (typeof CONDITION_TARGETS)[number];
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
export const VALUELESS_OPERATORS: readonly Operator[] = ['exists', 'not_exists'];

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
  fault?: Fault;
}

export type SequenceMode = 'loop' | 'hold_last';

export interface RuleResponse {
  mode: SequenceMode;
  steps: Step[];
}

export type OnError = 'continue' | 'stop';

export interface VariableAction {
  type: 'set_variable' | 'store_variable';
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
  saveAs?: string;
  onError: OnError;
}

export type Action = VariableAction | HttpRequestAction;
export type ActionType = Action['type'];

export interface Rule {
  id: string;
  endpointId: string;
  name: string;
  priority: number;
  active: boolean;
  conditions: Condition[];
  response: RuleResponse | null;
  actions: Action[];
  state: { step: number; served: number };
  createdAt: string;
  updatedAt: string;
}

/** What a client may write for a rule. */
export type RuleInput = Pick<Rule, 'name' | 'priority' | 'active' | 'conditions' | 'response' | 'actions'>;

export interface RuleTrace {
  ruleId: string;
  name: string;
  matched: boolean;
  failedCondition?: number;
  reason?: string;
}

export interface LogEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  query: string | Record<string, unknown>;
  headers: Record<string, string>;
  body: string;
  endpointId: string | null;
  ruleId: string | null;
  statusCode: number;
  durationMs: number;
  actions: { type: string; ok: boolean; error?: string }[];
  rules?: RuleTrace[];
  proxied?: boolean;
  /** the X-Mockyard-Session header of the request, when it had one */
  session?: string;
}

/** A mock session seen on an endpoint (`GET …/endpoints/:id/sessions`). */
export interface MockSession {
  session: string;
  lastSeen: string;
}

export type OnConflict = 'fail' | 'skip' | 'replace';

/** Answer of `POST /api/projects/:id/import/openapi`. */
export interface OpenApiImportReport {
  created: Endpoint[];
  skipped: { method: string; path: string; reason: string }[];
  replaced: Endpoint[];
}

/** `GET /api/projects/:id/export` (docs/interop.md); only the parts the dashboard reads are typed. */
export interface ExportDocument {
  mockyard: number;
  exportedAt: string;
  project: { name: string; fallbackUrl: string | null };
  endpoints: unknown[];
  storage?: Record<string, Record<string, unknown>>;
}

export interface ErrorDetail {
  path: string;
  message: string;
}
