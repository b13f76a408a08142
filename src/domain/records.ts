/**
 * The records the API answers with, as TypeBox schemas: the single source of the domain's types
 * (`model.ts` derives them with `Static<>`, the dashboard imports those types) and of the
 * OpenAPI document's answers.
 */

import { Type } from '@sinclair/typebox';
import {
  ACTION_TYPES,
  COLLECTION_NAME,
  COLLECTION_OPERATIONS,
  CONDITION_TARGETS,
  FAULTS,
  IMPORT_FORMATS,
  METHODS,
  ON_ERROR,
  OPERATORS,
  PLANS,
  SEQUENCE_MODES,
  STORAGE_SCOPES,
} from './constants.js';
import { ViolationRecord } from './contract.js';
import { GraphqlSchemaField } from './graphql.js';
import { StepSocketFields, TriggerSchema } from './sockets.js';
import { StepStreamFields } from './streams.js';

export const strEnum = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

export const IsoTime = Type.String({ format: 'date-time' });
const StringMap = Type.Record(Type.String(), Type.String());

export const UserRecord = Type.Object({
  id: Type.String(),
  email: Type.String(),
  plan: strEnum(PLANS),
  createdAt: IsoTime,
});

export const ProjectRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  /** where mock requests with no matching endpoint are forwarded (null: none) */
  fallbackUrl: Type.Union([Type.String(), Type.Null()]),
  /** DNS label unique across the service: the mock host is `<slug>.<MOCKYARD_MOCK_DOMAIN>` (SECURITY.md) */
  slug: Type.String({ description: 'DNS label of the project’s mock host' }),
  /** record mode: every mock request is proxied to fallbackUrl and its answer recorded (docs/interop.md) */
  recording: Type.Boolean({ description: 'record mode: requests go to fallbackUrl and answers become mocks' }),
  /** config variables, read in templates as `{{config.NAME}}` (docs/templates.md) */
  config: Type.Record(Type.String(), Type.String(), { description: 'config variables: {{config.NAME}} in templates' }),
  /** contract validation modes (docs/contract.md) */
  validation: Type.Object({
    requests: Type.Union([Type.Literal('off'), Type.Literal('warn'), Type.Literal('enforce')]),
    responses: Type.Union([Type.Literal('off'), Type.Literal('warn')]),
    status: Type.Union([Type.Literal(400), Type.Literal(422)]),
  }),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});

export const DataBindingRecord = Type.Object({
  collection: Type.String({ pattern: COLLECTION_NAME.source }),
  operation: strEnum(COLLECTION_OPERATIONS),
});

export const CollectionRecord = Type.Object({
  name: Type.String(),
  idField: Type.String(),
  seed: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});

export const EndpointRecord = Type.Object({
  id: Type.String(),
  projectId: Type.String(),
  method: strEnum(METHODS),
  path: Type.String(),
  statusCode: Type.Integer(),
  responseBody: Type.String(),
  contentType: Type.String(),
  /** bound to a collection: when no rule answers, the collection operation is the answer */
  data: Type.Union([DataBindingRecord, Type.Null()]),
  /** headers of the default answer (values are templates) */
  headers: StringMap,
  /** a GraphQL endpoint's schema and bindings (docs/graphql.md); null: not GraphQL */
  graphql: Type.Union([GraphqlSchemaField, Type.Null()]),
  /** WebSocket endpoints: channels its sockets join besides `default` (docs/websocket.md) */
  channels: Type.Array(Type.String()),
  /** contract validation modes of this endpoint; null: the project's (docs/contract.md) */
  validation: Type.Union([
    Type.Object({
      requests: Type.Union([Type.Literal('off'), Type.Literal('warn'), Type.Literal('enforce')]),
      responses: Type.Union([Type.Literal('off'), Type.Literal('warn')]),
      status: Type.Union([Type.Literal(400), Type.Literal(422)]),
    }),
    Type.Null(),
  ]),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});

export const ConditionRecord = Type.Object({
  target: strEnum(CONDITION_TARGETS),
  key: Type.Optional(Type.String()),
  operator: strEnum(OPERATORS),
  value: Type.Optional(Type.String()),
});

export const StepRecord = Type.Object({
  statusCode: Type.Integer(),
  body: Type.String(),
  headers: StringMap,
  delayMs: Type.Integer(),
  delayMaxMs: Type.Integer(),
  count: Type.Integer(),
  /** instead of an answer, fail the connection in this way (after the delay) */
  fault: Type.Optional(strEnum(FAULTS)),
  ...StepStreamFields,
  ...StepSocketFields,
  /** GraphQL endpoints: merged over the generated answer */
  graphql: Type.Optional(
    Type.Object({ data: Type.Optional(Type.Unknown()), errors: Type.Optional(Type.Array(Type.Unknown())) }),
  ),
});

export const ResponseRecord = Type.Object({ mode: strEnum(SEQUENCE_MODES), steps: Type.Array(StepRecord) });

const onError = strEnum(ON_ERROR);
export const SetVariableRecord = Type.Object({
  type: Type.Literal('set_variable'),
  name: Type.String(),
  value: Type.String(),
  onError,
});
export const StoreVariableRecord = Type.Object({
  type: Type.Literal('store_variable'),
  name: Type.String(),
  value: Type.String(),
  /** the project's storage ({{project.NAME}}); absent: the endpoint's ({{endpoint.NAME}}) */
  scope: Type.Optional(strEnum(STORAGE_SCOPES)),
  onError,
});
export const DeleteVariableRecord = Type.Object({
  type: Type.Literal('delete_variable'),
  name: Type.String(),
  scope: Type.Optional(strEnum(STORAGE_SCOPES)),
  onError,
});
export const HttpRequestRecord = Type.Object({
  type: Type.Literal('http_request'),
  url: Type.String(),
  method: Type.String(),
  headers: StringMap,
  body: Type.String(),
  applyResponse: Type.Boolean(),
  timeoutMs: Type.Integer(),
  /** keep the answer as {{vars.NAME.status|headers.X|body|body.PATH}} */
  saveAs: Type.Optional(Type.String()),
  onError,
});
/** Sends a message to every WebSocket on a channel of the project, in the request's mock session (docs/websocket.md). */
export const BroadcastRecord = Type.Object({
  type: Type.Literal('broadcast'),
  channel: Type.String(),
  body: Type.String(),
  onError,
});
export const ActionRecord = Type.Union([
  SetVariableRecord,
  StoreVariableRecord,
  DeleteVariableRecord,
  HttpRequestRecord,
  BroadcastRecord,
]);

export const RuleRecordSchema = Type.Object({
  id: Type.String(),
  endpointId: Type.String(),
  name: Type.String(),
  priority: Type.Integer(),
  active: Type.Boolean(),
  conditions: Type.Array(ConditionRecord),
  response: Type.Union([ResponseRecord, Type.Null()]),
  actions: Type.Array(ActionRecord),
  /** WebSocket endpoints: what runs the rule (absent: `message`) */
  on: Type.Optional(TriggerSchema),
  state: Type.Object({ step: Type.Integer(), served: Type.Integer() }),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});

export const ActionOutcomeRecord = Type.Object({
  type: strEnum(ACTION_TYPES),
  ok: Type.Boolean(),
  error: Type.Optional(Type.String()),
});

/** Why a rule did or did not answer, for the request log. */
export const RuleTraceRecord = Type.Object({
  ruleId: Type.String(),
  name: Type.String(),
  matched: Type.Boolean(),
  /** index of the first condition that failed, when not matched */
  failedCondition: Type.Optional(Type.Integer()),
  reason: Type.Optional(Type.String()),
});

/** The answer a mock request got, as sent (issue 20's inspector): absent for errors and proxied answers. */
export const SentAnswerRecord = Type.Object({
  headers: StringMap,
  /** the body as sent, cut at 64 KiB (`truncated`) */
  body: Type.String(),
  truncated: Type.Optional(Type.Boolean()),
  /** the rule's step that answered: its place (0-based) among `of` steps */
  step: Type.Optional(Type.Object({ index: Type.Integer(), of: Type.Integer() })),
  /** the delay waited before answering, in ms */
  delayMs: Type.Optional(Type.Integer()),
  /** the step's network fault instead of an answer */
  fault: Type.Optional(Type.String()),
  /** how many events a streamed answer sent (its body holds the first 64 KiB written) */
  events: Type.Optional(Type.Integer()),
  /** when each event went out, in ms after the answer's head (the first 1,000) */
  eventTimes: Type.Optional(Type.Array(Type.Integer())),
});

export const RequestLogEntryRecord = Type.Object({
  id: Type.String(),
  at: IsoTime,
  method: Type.String(),
  path: Type.String(),
  query: Type.String(),
  headers: StringMap,
  body: Type.String(),
  endpointId: Type.Union([Type.String(), Type.Null()]),
  ruleId: Type.Union([Type.String(), Type.Null()]),
  statusCode: Type.Integer(),
  durationMs: Type.Number(),
  actions: Type.Array(ActionOutcomeRecord),
  rules: Type.Array(RuleTraceRecord),
  proxied: Type.Optional(Type.Boolean()),
  /** the X-Mockyard-Session header of the request, when it had one */
  session: Type.Optional(Type.String()),
  /** the collection operation that answered (an endpoint bound to a collection) */
  data: Type.Optional(DataBindingRecord),
  /** why the answer is an error of the service's own (e.g. `render_too_large`, docs/limits.md) */
  error: Type.Optional(Type.String()),
  /** something the service did not do with this request, and why (e.g. record mode did not record it) */
  warning: Type.Optional(Type.String()),
  /** no endpoint matched: the nearest ones, and what differs */
  nearest: Type.Optional(
    Type.Array(
      Type.Object({
        method: Type.String(),
        path: Type.String(),
        /** segments to change (a different method adds none) */
        distance: Type.Optional(Type.Integer()),
        why: Type.String(),
      }),
      { maxItems: 3 },
    ),
  ),
  /** a WebSocket's connect, message in or out, or close (docs/websocket.md); absent: an HTTP request */
  kind: Type.Optional(Type.Literal('ws')),
  direction: Type.Optional(Type.Union([Type.Literal('in'), Type.Literal('out')])),
  event: Type.Optional(Type.Union([Type.Literal('connect'), Type.Literal('message'), Type.Literal('close')])),
  /** the socket the entry belongs to */
  socketId: Type.Optional(Type.String()),
  /** what the request and the answer did not follow of the project's contract (docs/contract.md) */
  violations: Type.Optional(
    Type.Object({ request: Type.Array(ViolationRecord), response: Type.Array(ViolationRecord) }),
  ),
  response: Type.Optional(SentAnswerRecord),
});

/** A mock session seen on an endpoint (`GET …/endpoints/:id/sessions`). */
export const MockSessionRecord = Type.Object({ session: Type.String(), lastSeen: IsoTime });

/** What an import did: created, replaced and skipped endpoints, and a warning for each construct not translated exactly. */
export const ImportReportRecord = Type.Object({
  format: strEnum(IMPORT_FORMATS),
  created: Type.Array(EndpointRecord),
  replaced: Type.Array(EndpointRecord),
  skipped: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), reason: Type.String() })),
  warnings: Type.Array(
    Type.Object({
      pointer: Type.String({ description: 'JSON pointer into the uploaded document' }),
      message: Type.String(),
    }),
    { description: 'each construct that was not translated, or only approximately' },
  ),
});

/** A template helper as `GET /api/templates/helpers` lists it (docs/templates.md). */
export const TemplateHelperRecord = Type.Object({
  name: Type.String(),
  family: Type.String(),
  signature: Type.String(),
  description: Type.String(),
  example: Type.String(),
  /** what the example renders (left out when it is random) */
  output: Type.Optional(Type.String()),
  random: Type.Optional(Type.Boolean()),
  block: Type.Optional(Type.Boolean()),
  aliases: Type.Optional(Type.Array(Type.String())),
});

/** An API key as listed (never the key itself; docs/testing.md). */
export const ApiKeyRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scope: Type.Union([Type.Literal('read'), Type.Literal('write')]),
  /** null: every project of the user */
  projectIds: Type.Union([Type.Array(Type.String()), Type.Null()]),
  expiresAt: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
});

/** What makes an API key: `POST /api/auth/keys`. */
export const ApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scope: Type.Union([Type.Literal('read'), Type.Literal('write')]),
    projectIds: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 1000 })),
    expiresAt: Type.Optional(Type.String({ maxLength: 64, description: 'ISO 8601 time in the future' })),
  },
  { additionalProperties: false },
);
