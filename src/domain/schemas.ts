/**
 * JSON schemas (TypeBox) of every request and response body. Fastify validates bodies against
 * them (no coercion, no removal of unknown fields: unknown fields are a 400) and @fastify/swagger
 * turns them into the OpenAPI document. Rules that JSON Schema cannot say (trimmed lengths, regex
 * validity, keys a target needs) live in validate.ts.
 */

import { type Static, type TSchema, type TUnion, Type } from '@sinclair/typebox';
import {
  ACTION_TIMEOUT,
  CONDITION_TARGETS,
  FAULTS,
  LIMITS,
  METHODS,
  ON_ERROR,
  OPERATORS,
  PLANS,
  SEQUENCE_MODES,
  STORAGE_SCOPES,
} from './constants.js';
import { ValidationModesSchema } from './contract.js';
import { GraphqlSchemaField } from './graphql.js';
import { DataBindingRecord, ProjectRecord, strEnum, UserRecord } from './records.js';
import { CHANNEL_NAME, StepSocketFields, TriggerSchema } from './sockets.js';
import { StepStreamFields } from './streams.js';

export { LIMITS };

/** Fields a client may send back from a read; accepted and ignored on writes. */
const readOnly = (names: string[]): Record<string, TSchema> =>
  Object.fromEntries(
    names.map((n) => [n, Type.Optional(Type.Unknown({ description: 'read-only: ignored on writes' }))]),
  );

export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
    }),
  },
  { $id: 'Error' },
);

// ------------------------------------------------------------------------------------------------
// auth

export const Credentials = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: 8, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export const LoginBody = Type.Object(
  { email: Type.String({ maxLength: 254 }), password: Type.String({ maxLength: 1024 }) },
  { additionalProperties: false },
);
export const PasswordChange = Type.Object(
  { oldPassword: Type.String({ maxLength: 1024 }), newPassword: Type.String({ minLength: 8, maxLength: 1024 }) },
  { additionalProperties: false },
);
export const UserSchema = UserRecord;
export const AuthAnswer = Type.Object({ token: Type.String(), user: UserSchema });
export const PlanBody = Type.Object({ plan: strEnum(PLANS) }, { additionalProperties: false });

// ------------------------------------------------------------------------------------------------
// projects

export const ProjectBody = Type.Object(
  {
    name: Type.String({ description: '1–100 characters after trimming' }),
    fallbackUrl: Type.Optional(
      Type.Union([Type.String({ maxLength: LIMITS.urlLength }), Type.Null()], {
        description: 'mock requests that match no endpoint are forwarded here (http or https)',
      }),
    ),
    recording: Type.Optional(
      Type.Boolean({
        description:
          'record mode: every mock request is forwarded to fallbackUrl and each answer becomes an endpoint, or a rule keyed by the query and body (needs a fallbackUrl)',
      }),
    ),
    validation: Type.Optional(ValidationModesSchema),
    config: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 4096 }), {
        description: `config variables read in templates as {{config.NAME}}: names of A-Z, a-z, 0-9 and _, at most ${100}, values at most 4 KiB`,
      }),
    ),
    slug: Type.Optional(
      Type.String({
        maxLength: 63,
        description:
          'DNS label (1–63 of a-z, 0-9, -; no - first or last), unique across the service: the mock host is <slug>.<MOCKYARD_MOCK_DOMAIN>. Generated when omitted.',
      }),
    ),
    ...readOnly(['id', 'createdAt', 'updatedAt', 'mockUrl']),
  },
  { additionalProperties: false },
);
export const ProjectPatch = Type.Partial(ProjectBody, { additionalProperties: false });
export const ProjectSchema = Type.Composite([
  ProjectRecord,
  Type.Object({
    mockUrl: Type.String({
      description:
        'base of the project’s mock URLs: `/m/<id>`, or `http(s)://<slug>.<domain>` when MOCKYARD_MOCK_DOMAIN is set',
    }),
  }),
]);

// ------------------------------------------------------------------------------------------------
// endpoints

const methodSchema = Type.String({ description: `one of ${METHODS.join(' ')}, any letter case`, maxLength: 16 });
const headerMap = Type.Record(
  Type.String({ maxLength: LIMITS.keyLength }),
  Type.String({ maxLength: LIMITS.valueLength }),
  {
    maxProperties: LIMITS.headersPerStep,
  },
);

const endpointFields = {
  method: methodSchema,
  path: Type.String({ maxLength: LIMITS.pathLength, description: 'starts with /; :name segments and a final *' }),
  statusCode: Type.Integer({ minimum: 100, maximum: 599 }),
  responseBody: Type.String({ maxLength: LIMITS.bodyLength, description: 'a template' }),
  contentType: Type.String({ minLength: 1, maxLength: LIMITS.contentTypeLength }),
  data: Type.Union([Type.Object(DataBindingRecord.properties, { additionalProperties: false }), Type.Null()], {
    description: 'bind to a collection: when no rule answers, the operation is the answer (docs/stateful-mocks.md)',
  }),
  headers: Type.Record(Type.String({ maxLength: LIMITS.keyLength }), Type.String({ maxLength: LIMITS.valueLength }), {
    maxProperties: LIMITS.headersPerStep,
    description: 'headers of the default answer (values are templates)',
  }),
  graphql: Type.Union([GraphqlSchemaField, Type.Null()], {
    description: 'a GraphQL endpoint: its schema (SDL) and bindings of fields to collections (docs/graphql.md)',
  }),
  channels: Type.Array(Type.String({ pattern: CHANNEL_NAME.source }), {
    maxItems: 20,
    description: 'WebSocket endpoints: channels its sockets join besides default (docs/websocket.md)',
  }),
  validation: Type.Union([ValidationModesSchema, Type.Null()], {
    description: "contract validation of this endpoint's requests and answers; null: the project's (docs/contract.md)",
  }),
};
export const EndpointBody = Type.Object(
  {
    method: endpointFields.method,
    path: endpointFields.path,
    statusCode: Type.Optional(endpointFields.statusCode),
    responseBody: Type.Optional(endpointFields.responseBody),
    contentType: Type.Optional(endpointFields.contentType),
    data: Type.Optional(endpointFields.data),
    headers: Type.Optional(endpointFields.headers),
    validation: Type.Optional(endpointFields.validation),
    channels: Type.Optional(endpointFields.channels),
    graphql: Type.Optional(endpointFields.graphql),
    ...readOnly(['id', 'projectId', 'createdAt', 'updatedAt', 'rules']),
  },
  { additionalProperties: false },
);
export const EndpointPatch = Type.Object(
  {
    method: Type.Optional(endpointFields.method),
    path: Type.Optional(endpointFields.path),
    statusCode: Type.Optional(endpointFields.statusCode),
    responseBody: Type.Optional(endpointFields.responseBody),
    contentType: Type.Optional(endpointFields.contentType),
    data: Type.Optional(endpointFields.data),
    headers: Type.Optional(endpointFields.headers),
    validation: Type.Optional(endpointFields.validation),
    channels: Type.Optional(endpointFields.channels),
    graphql: Type.Optional(endpointFields.graphql),
    ...readOnly(['id', 'projectId', 'createdAt', 'updatedAt', 'rules']),
  },
  { additionalProperties: false },
);

// ------------------------------------------------------------------------------------------------
// rules

export const ConditionSchema = Type.Object(
  {
    target: strEnum(CONDITION_TARGETS),
    key: Type.Optional(Type.String({ maxLength: LIMITS.keyLength })),
    operator: strEnum(OPERATORS),
    value: Type.Optional(
      Type.Union([Type.String({ maxLength: LIMITS.valueLength }), Type.Number()], {
        description: 'a number is taken as its decimal text',
      }),
    ),
  },
  { additionalProperties: false },
);

export const StepSchema = Type.Object(
  {
    statusCode: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: 'default 200' })),
    body: Type.Optional(Type.String({ maxLength: LIMITS.bodyLength })),
    headers: Type.Optional(headerMap),
    delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.maxDelayMs })),
    delayMaxMs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.maxDelayMs })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.maxCount })),
    fault: Type.Optional(strEnum(FAULTS, 'fail the connection this way instead of answering')),
    ...StepStreamFields,
    ...StepSocketFields,
    graphql: Type.Optional(
      Type.Object(
        { data: Type.Optional(Type.Unknown()), errors: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100 })) },
        {
          additionalProperties: false,
          description: 'GraphQL endpoints: merged over the generated answer (docs/graphql.md)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ResponseSchema = Type.Object(
  {
    mode: Type.Optional(strEnum(SEQUENCE_MODES)),
    steps: Type.Array(StepSchema, { minItems: 1, maxItems: LIMITS.stepsPerRule }),
  },
  { additionalProperties: false },
);

const onError = Type.Optional(strEnum(ON_ERROR));
const varName = Type.String({ minLength: 1, maxLength: LIMITS.nameLength });
const value = Type.Optional(Type.String({ maxLength: LIMITS.valueLength }));
const scope = Type.Optional(
  strEnum(STORAGE_SCOPES, 'endpoint (default): {{endpoint.NAME}}; project: {{project.NAME}}, shared by its endpoints'),
);
const actionVariants = [
  Type.Object({ type: Type.Literal('set_variable'), onError, name: varName, value }, { additionalProperties: false }),
  Type.Object(
    { type: Type.Literal('store_variable'), onError, name: varName, value, scope },
    { additionalProperties: false },
  ),
  Type.Object(
    { type: Type.Literal('delete_variable'), onError, name: varName, scope },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal('http_request'),
      onError,
      url: Type.String({ minLength: 1, maxLength: LIMITS.urlLength }),
      method: Type.Optional(Type.String({ maxLength: 16 })),
      headers: Type.Optional(headerMap),
      body: Type.Optional(Type.String({ maxLength: LIMITS.bodyLength })),
      applyResponse: Type.Optional(Type.Boolean()),
      timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: ACTION_TIMEOUT.max })),
      saveAs: Type.Optional(varName),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal('broadcast'),
      onError,
      channel: Type.String({ pattern: CHANNEL_NAME.source, description: 'a channel of the project’s sockets' }),
      body: Type.String({ maxLength: LIMITS.bodyLength, description: 'a template' }),
    },
    { additionalProperties: false },
  ),
] as const;
/**
 * An action as a client writes it: one shape per `type` (a discriminated union — the validator
 * picks the branch by `type`, so errors name the fields of that type only).
 */
export const ActionSchema = Type.Unsafe<Static<TUnion<[...typeof actionVariants]>>>({
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [...actionVariants],
});

const ruleFields = {
  name: Type.String({ description: '1–100 characters' }),
  priority: Type.Integer({ minimum: -LIMITS.maxPriority, maximum: LIMITS.maxPriority }),
  active: Type.Boolean(),
  conditions: Type.Array(ConditionSchema, { maxItems: LIMITS.conditionsPerRule }),
  response: Type.Union([ResponseSchema, Type.Null()]),
  actions: Type.Array(ActionSchema, { maxItems: LIMITS.actionsPerRule }),
  on: TriggerSchema,
};
const ruleReadOnly = readOnly(['id', 'endpointId', 'state', 'createdAt', 'updatedAt']);
export const RuleBody = Type.Object(
  {
    name: ruleFields.name,
    priority: Type.Optional(ruleFields.priority),
    active: Type.Optional(ruleFields.active),
    conditions: Type.Optional(ruleFields.conditions),
    response: Type.Optional(ruleFields.response),
    actions: Type.Optional(ruleFields.actions),
    on: Type.Optional(ruleFields.on),
    ...ruleReadOnly,
  },
  { additionalProperties: false },
);
export const RulePatch = Type.Object(
  {
    name: Type.Optional(ruleFields.name),
    priority: Type.Optional(ruleFields.priority),
    active: Type.Optional(ruleFields.active),
    conditions: Type.Optional(ruleFields.conditions),
    response: Type.Optional(ruleFields.response),
    actions: Type.Optional(ruleFields.actions),
    on: Type.Optional(ruleFields.on),
    ...ruleReadOnly,
  },
  { additionalProperties: false },
);
