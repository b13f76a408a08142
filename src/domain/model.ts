/**
 * The Mockyard domain model: types derived from the TypeBox schemas of records.ts (one source),
 * and the constants of constants.ts. Records are what the store keeps and the API returns (times
 * as ISO 8601 strings). Actions are a union discriminated by `type`.
 */
import type { Static } from '@sinclair/typebox';
import type {
  ActionOutcomeRecord,
  ActionRecord,
  ApiKeyBody,
  ApiKeyRecord,
  CollectionRecord,
  ConditionRecord,
  DataBindingRecord,
  DeleteVariableRecord,
  EndpointRecord,
  HttpRequestRecord,
  ImportReportRecord,
  MockSessionRecord,
  ProjectRecord,
  RequestLogEntryRecord,
  ResponseRecord,
  RuleRecordSchema,
  RuleTraceRecord,
  SetVariableRecord,
  StepRecord,
  StoreVariableRecord,
  TemplateHelperRecord,
  UserRecord,
} from './records.js';

export * from './constants.js';

export type User = Static<typeof UserRecord>;
export type Project = Static<typeof ProjectRecord>;
export type Endpoint = Static<typeof EndpointRecord>;
export type DataBinding = Static<typeof DataBindingRecord>;
export type Collection = Static<typeof CollectionRecord>;
export type Condition = Static<typeof ConditionRecord>;
export type Step = Static<typeof StepRecord>;
export type RuleResponse = Static<typeof ResponseRecord>;
export type SetVariableAction = Static<typeof SetVariableRecord>;
export type StoreVariableAction = Static<typeof StoreVariableRecord>;
export type DeleteVariableAction = Static<typeof DeleteVariableRecord>;
export type HttpRequestAction = Static<typeof HttpRequestRecord>;
export type Action = Static<typeof ActionRecord>;
export type Rule = Static<typeof RuleRecordSchema>;
export type SequenceState = Rule['state'];
export type ActionOutcome = Static<typeof ActionOutcomeRecord>;
export type RuleTrace = Static<typeof RuleTraceRecord>;
export type RequestLogEntry = Static<typeof RequestLogEntryRecord>;
export type ImportReport = Static<typeof ImportReportRecord>;
export type ImportWarning = ImportReport['warnings'][number];
export type Skipped = ImportReport['skipped'][number];
export type MockSession = Static<typeof MockSessionRecord>;
export type TemplateHelper = Static<typeof TemplateHelperRecord>;
export type ApiKey = Static<typeof ApiKeyRecord>;
export type ApiKeyFields = Static<typeof ApiKeyBody>;

/** A rule as stored, without the derived state (the store keeps a hit counter instead). */
export type RuleRecord = Omit<Rule, 'state'> & { projectId: string; hits: number };

/** A filter of logged mock requests (`POST …/requests/count|find`, docs/testing.md). */
export interface RequestFilter {
  method?: string;
  /** the path after the project prefix, matched exactly */
  path?: string;
  /** RE2, anchored at both ends */
  pathPattern?: string;
  endpointId?: string;
  ruleId?: string;
  session?: string;
  /** ISO time, inclusive */
  since?: string;
  /** names case-insensitive, values equal */
  headers?: Record<string, string>;
  statusCode?: number;
  /** true: only requests whose request or answer broke the contract; false: only the others */
  violations?: boolean;
}
