/**
 * Wire shapes of the Mockyard management API (docs/api.md). The domain's types and constants are
 * the server's own (src/domain: TypeBox schemas and plain constants), imported, never copied; this
 * file adds only the shapes of answers that are the dashboard's concern.
 */
import type {
  Action,
  Endpoint as EndpointRecord,
  Project as ProjectRecord,
  RequestLogEntry,
  Rule,
} from '../../src/domain/model';

export type {
  ActionType,
  ConditionTarget,
  Fault,
  HttpMethod,
  OnError,
  Operator,
  Plan,
  SequenceMode,
  StorageScope,
} from '../../src/domain/constants';
export {
  ACTION_TIMEOUT,
  CONDITION_TARGETS,
  FAULTS,
  KEYED_TARGETS,
  LIMITS,
  LLM_PROVIDERS,
  METHODS,
  OPERATORS,
  PLANS,
  RULE_LIMITS,
  STORAGE_SCOPES,
  STREAM_FAULTS,
  VALUED_OPERATORS,
  VALUELESS_OPERATORS,
} from '../../src/domain/constants';
export type { ErrorDetail } from '../../src/domain/errors.js';
export type {
  Action,
  Collection,
  Condition,
  DataBinding,
  HttpRequestAction,
  MockSession,
  Rule,
  RuleResponse,
  RuleTrace,
  Step,
  User,
} from '../../src/domain/model';

/** `set_variable` and `store_variable`: the two actions with a name and a value. */
export type VariableAction = Extract<Action, { type: 'set_variable' | 'store_variable' }>;

/** A project as the API answers it: the record plus the base of its mock URLs. */
export type Project = ProjectRecord & { mockUrl: string };

/** An endpoint; the single read adds its rules. */
export type Endpoint = EndpointRecord & { rules?: Rule[] };

export interface AuthAnswer {
  token: string;
  user: import('../../src/domain/model').User;
}

/** What a client may write for a rule. */
export type RuleInput = Pick<Rule, 'name' | 'priority' | 'active' | 'conditions' | 'response' | 'actions'>;

/** A request-log entry, as listed and streamed. */
export type LogEntry = RequestLogEntry;

export type OnConflict = 'fail' | 'skip' | 'replace';

export type ImportFormat = 'openapi' | 'wiremock' | 'mockoon' | 'postman' | 'har';

/** Answer of every `POST /api/projects/:id/import[/format]` (docs/interop.md), declared once in the domain. */
export type { ApiKey, ImportReport, TemplateHelper } from '../../src/domain/model';

/** `GET /api/projects/:id/export` (docs/interop.md); only the parts the dashboard reads are typed. */
export interface ExportDocument {
  mockyard: number;
  exportedAt: string;
  project: { name: string; fallbackUrl: string | null };
  endpoints: unknown[];
  storage?: Record<string, Record<string, unknown>>;
}
