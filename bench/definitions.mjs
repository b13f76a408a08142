// What S1-S4 create in Mockyard over its API and the request their load sends, without side effects on
// import: shared by the harness (bench/lib/scenarios.mjs) and bench/instructions.mjs.
import { EACH_TEMPLATE, ECHO_TEMPLATE, GQL_BODY, GQL_SCHEMA, SEQ_BODIES, TIER_BODY, USERS_BODY } from './bodies.mjs';

/** A response step answering 200 with `body`. */
export const step = (body) => ({ statusCode: 200, body, headers: {} });

/** A loop of the three SEQ_BODIES steps on GET `p` (S4, S4-pg). */
export const seqDef = (p) => ({
  endpoint: { method: 'GET', path: p, statusCode: 200, responseBody: '{"n":0}', contentType: 'application/json' },
  rules: [
    {
      name: 'cycle 1,2,3',
      priority: 1,
      conditions: [],
      response: { mode: 'loop', steps: SEQ_BODIES.map(step) },
      actions: [],
    },
  ],
});

const json = { statusCode: 200, contentType: 'application/json' };

/** S10: the contract of S1's answer (GET /api/users with an integer `limit`). */
export const USERS_CONTRACT = {
  openapi: '3.0.3',
  info: { title: 'bench', version: '1' },
  paths: {
    '/api/users': {
      get: {
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } }],
        responses: {
          200: {
            description: 'users',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    users: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['id', 'name'],
                        properties: { id: { type: 'integer' }, name: { type: 'string' }, role: { type: 'string' } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};
/** path (with query) and headers of the load's request, and `def`: the endpoint and its rules. */
export const MOCKS = {
  S1: {
    path: '/api/users',
    def: { endpoint: { method: 'GET', path: '/api/users', ...json, responseBody: USERS_BODY }, rules: [] },
  },
  S2: {
    path: '/api/tier',
    headers: { 'x-tier': 'vip' },
    def: {
      endpoint: { method: 'GET', path: '/api/tier', ...json, responseBody: TIER_BODY.free },
      rules: [
        {
          name: 'vip header',
          priority: 1,
          conditions: [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' }],
          response: { mode: 'loop', steps: [step(TIER_BODY.vip)] },
          actions: [],
        },
        {
          name: 'beta query',
          priority: 2,
          conditions: [{ target: 'query', key: 'beta', operator: 'exists' }],
          response: { mode: 'loop', steps: [step(TIER_BODY.beta)] },
          actions: [],
        },
      ],
    },
  },
  S3: {
    path: '/api/echo?name=Ada',
    def: { endpoint: { method: 'GET', path: '/api/echo', ...json, responseBody: ECHO_TEMPLATE }, rules: [] },
  },
  S3b: {
    path: '/api/each?name=Ada',
    def: { endpoint: { method: 'GET', path: '/api/each', ...json, responseBody: EACH_TEMPLATE }, rules: [] },
  },
  S4: { path: '/api/seq', def: seqDef('/api/seq') },
  // a generated GraphQL answer: a 3-level query of 20 fields (docs/graphql.md)
  S11: {
    path: '/graphql',
    method: 'POST',
    body: GQL_BODY,
    headers: { 'content-type': 'application/json' },
    def: { endpoint: { method: 'POST', path: '/graphql', graphql: { schema: GQL_SCHEMA } }, rules: [] },
  },
  // S1's answer in a project of its own with a contract, requests enforced (docs/contract.md)
  S10: {
    path: '/api/users?limit=10',
    def: {
      ownProject: true,
      contract: USERS_CONTRACT,
      validation: { requests: 'enforce' },
      endpoint: { method: 'GET', path: '/api/users', ...json, responseBody: USERS_BODY },
      rules: [],
    },
  },
};
