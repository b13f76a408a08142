/**
 * GraphQL mocks (docs/graphql.md) through the real server: generated answers checked against the
 * schema by graphql's own executor, parse and validation errors, GET and POST, both media types,
 * X-Mockyard-Seed, bindings to collections per session, the GraphQL condition targets, a step's
 * graphql merged over generated data, and imports of SDL and introspection results.
 */
import { buildSchema, type GraphQLFieldResolver, graphql, introspectionFromSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError } from '../helpers/expect.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SDL = `
  enum Role { ADMIN USER }
  interface Node { id: ID! }
  type User implements Node { id: ID! name: String! email: String role: Role! age: Int score: Float active: Boolean posts: [Post!]! }
  type Post implements Node { id: ID! title: String! author: User }
  union SearchResult = User | Post
  input NewUser { name: String! email: String }
  type Query { users: [User!]! user(id: ID!): User me: User search(q: String!): [SearchResult!]! node(id: ID!): Node }
  type Mutation { createUser(input: NewUser!): User! deleteUser(id: ID!): Boolean }
`;
const schema = buildSchema(SDL);

/** Re-executes `query` over `data` (values read by response key): graphql's own check of every value's type. */
async function conforms(query: string, data: unknown, variables?: Record<string, unknown>) {
  const byKey: GraphQLFieldResolver<unknown, unknown> = (source, _a, _c, info) =>
    (source as Record<string, unknown>)[info.path.key as string];
  const again = await graphql({
    schema,
    source: query,
    rootValue: data,
    variableValues: variables,
    fieldResolver: byKey,
  });
  expect(again.errors).toBeUndefined();
  expect(again.data).toEqual(data);
}

const QUERY = `query Everything {
  people: users { id name email role age score active __typename posts { title } }
  me { ...who }
  search(q: "x") { __typename ... on User { name } ... on Post { title } }
}
fragment who on User { id name }`;

describe.each(DIALECTS)('GraphQL mocks (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect, { defaultPlan: 'unlimited' });
  });
  afterAll(() => s.close());

  async function setup(bindings?: Record<string, unknown>) {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const ep = await c.endpoint(u.token, p.id, {
      method: 'POST',
      path: '/graphql',
      graphql: { schema: SDL, ...(bindings ? { bindings } : {}) },
    });
    const ask = (query: string, variables?: unknown, headers: Record<string, string> = {}, operationName?: string) =>
      c.mock(p.id, 'POST', '/graphql', {
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables, operationName }),
      });
    return { c, u, p, ep, ask };
  }

  it('generates data for exactly the selection set: fragments, aliases, unions, __typename, lists of 3', async () => {
    const { ask } = await setup();
    const r = await ask(QUERY);
    expect(r.status).toBe(200);
    expect(r.json.errors).toBeUndefined();
    await conforms(QUERY, r.json.data);
    expect(r.json.data.people).toHaveLength(3);
    expect(Object.keys(r.json.data.people[0]).sort()).toEqual([
      '__typename',
      'active',
      'age',
      'email',
      'id',
      'name',
      'posts',
      'role',
      'score',
    ]);
    expect(r.json.data.people[0].email).toMatch(/@/);
    expect(Object.keys(r.json.data.me).sort()).toEqual(['id', 'name']);
    // the same seed, the same data
    const a = await ask(QUERY, undefined, { 'x-mockyard-seed': 'seven' });
    const b = await ask(QUERY, undefined, { 'x-mockyard-seed': 'seven' });
    expect(a.json).toEqual(b.json);
    expect((await ask(QUERY)).json).not.toEqual((await ask(QUERY)).json);
  });

  it('answers parse and validation errors with locations; GET takes queries; the strict media type gets 400', async () => {
    const { c, p, ask } = await setup();
    const parse = await ask('{ users { id ');
    expect(parse.status).toBe(200);
    expect(parse.json.errors[0]).toMatchObject({
      message: expect.stringContaining('Syntax Error'),
      locations: [{ line: 1, column: 14 }],
    });
    const invalid = await ask('{ users { nope } }');
    expect(invalid.json.errors[0]).toMatchObject({
      message: expect.stringContaining('nope'),
      locations: [{ line: 1, column: 11 }],
    });
    const strict = await ask('{ users { nope } }', undefined, { accept: 'application/graphql-response+json' });
    expect(strict.status).toBe(400);
    expect(strict.headers.get('content-type')).toContain('application/graphql-response+json');
    const get = await c.mock(p.id, 'GET', '/graphql', { query: `query=${encodeURIComponent('{ me { name } }')}` });
    expect(get.status).toBe(200);
    expect(typeof get.json.data.me.name).toBe('string');
    const mutation = await c.mock(p.id, 'GET', '/graphql', {
      query: `query=${encodeURIComponent('mutation { deleteUser(id: "1") }')}`,
    });
    expect(mutation.json.errors[0].message).toContain('GET');
  });

  it('binds fields to collections, per mock session: a mutation changes what later queries see in that session only', async () => {
    const { c, u, p, ask } = await setup({
      'Query.users': { collection: 'users', operation: 'list' },
      'Query.user': { collection: 'users', operation: 'get', idArg: 'id' },
      'Mutation.createUser': { collection: 'users', operation: 'create', inputArg: 'input' },
      'Mutation.deleteUser': { collection: 'users', operation: 'delete' },
    });
    await c.api(
      'POST',
      `/api/projects/${p.id}/collections`,
      { name: 'users', seed: [{ id: '1', name: 'Ann', role: 'ADMIN', posts: [] }] },
      u.token,
    );
    const s1 = { 'x-mockyard-session': 's1' };
    const created = await ask(
      'mutation($u: NewUser!) { createUser(input: $u) { id name role } }',
      { u: { name: 'Bo' } },
      s1,
    );
    expect(created.json.data.createUser.name).toBe('Bo');
    const id = created.json.data.createUser.id;
    const names = async (h: Record<string, string>) =>
      (await ask('{ users { name } }', undefined, h)).json.data.users.map((x: { name: string }) => x.name);
    expect(await names(s1)).toEqual(['Ann', 'Bo']);
    expect(await names({})).toEqual(['Ann']);
    expect((await ask('query($id: ID!) { user(id: $id) { name } }', { id }, s1)).json.data.user).toEqual({
      name: 'Bo',
    });
    expect((await ask('mutation { deleteUser(id: "1") }', undefined, s1)).json.data.deleteUser).toBe(true);
    expect(await names(s1)).toEqual(['Bo']);
    // the REST resource of the same collection shares the data
    const rest = await c.api('GET', `/api/projects/${p.id}/collections/users/items?session=s1`, undefined, u.token);
    expect(rest.json.map((x: { name: string }) => x.name)).toEqual(['Bo']);
  });

  it('rules: operation name and type, variables and top-level fields; a whole body or graphql merged over generated data', async () => {
    const { c, u, p, ep, ask } = await setup();
    const rule = (body: Record<string, unknown>) => c.rule(u.token, p.id, ep.id, body);
    await rule({
      name: 'by name',
      priority: 1,
      conditions: [{ target: 'graphql_operation', operator: 'equals', value: 'Broken' }],
      response: {
        steps: [{ statusCode: 200, body: '{"errors":[{"message":"down for {{request.body.operationName}}"}]}' }],
      },
    });
    await rule({
      name: 'admin',
      priority: 2,
      conditions: [
        { target: 'graphql_type', operator: 'equals', value: 'query' },
        { target: 'graphql_field', key: 'user', operator: 'exists' },
        { target: 'graphql_variable', key: 'id', operator: 'equals', value: 'root' },
      ],
      response: { steps: [{ graphql: { data: { user: { name: 'Root' } } } }] },
    });
    const broken = await ask('query Broken { me { id } }', undefined, {}, 'Broken');
    expect(broken.json).toEqual({ errors: [{ message: 'down for Broken' }] });
    const q = 'query($id: ID!) { user(id: $id) { id name } }';
    const root = await ask(q, { id: 'root' });
    expect(root.json.data.user.name).toBe('Root');
    expect(typeof root.json.data.user.id).toBe('string');
    expect((await ask(q, { id: 'other' })).json.data.user.name).not.toBe('Root');
    expect((await ask('mutation { deleteUser(id: "root") }')).json.data.deleteUser).not.toBeUndefined();
  });

  it("imports a Postman collection's GraphQL requests as rules on their one URL, by operation", async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const item = (name: string, query: string, answer: unknown) => ({
      name,
      request: {
        method: 'POST',
        url: 'https://api.example.test/graphql',
        body: { mode: 'graphql', graphql: { query, variables: '' } },
      },
      response: [
        {
          name: 'ok',
          code: 200,
          header: [{ key: 'Content-Type', value: 'application/json' }],
          body: JSON.stringify(answer),
        },
      ],
    });
    const collection = {
      info: { name: 'gql', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
      item: [
        item('users', 'query Users { users { id } }', { data: { users: [{ id: '1' }] } }),
        item('me', 'query Me { me { name } }', { data: { me: { name: 'Ann' } } }),
      ],
    };
    const r = await c.api('POST', `/api/projects/${p.id}/import/postman`, collection, u.token);
    expect(r.status, r.text).toBe(200);
    const ask = (query: string) =>
      c.mock(p.id, 'POST', '/graphql', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, operationName: query.split(' ')[1] }),
      });
    expect((await ask('query Me { me { name } }')).json).toEqual({ data: { me: { name: 'Ann' } } });
    expect((await ask('query Users { users { id } }')).json).toEqual({ data: { users: [{ id: '1' }] } });
  });

  it('imports SDL and introspection results as endpoints', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const sdl = await c.api('POST', `/api/projects/${p.id}/import/graphql`, SDL, u.token, {
      'content-type': 'application/graphql',
    });
    expect(sdl.status).toBe(200);
    expect(sdl.json).toMatchObject({ format: 'graphql', created: [{ method: 'POST', path: '/graphql' }] });
    const intro = { data: introspectionFromSchema(schema) };
    const r = await c.api('POST', `/api/projects/${p.id}/import/graphql?path=/v2/graphql`, intro, u.token);
    expect(r.json.created[0].path).toBe('/v2/graphql');
    const answer = await c.mock(p.id, 'POST', '/v2/graphql', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ users { id } }' }),
    });
    expect(answer.json.data.users).toHaveLength(3);
    expectError(
      await c.api('POST', `/api/projects/${p.id}/import/graphql`, 'type Query {', u.token, {
        'content-type': 'text/plain',
      }),
      400,
      'validation_failed',
    );
    expectError(
      await c.api(
        'POST',
        `/api/projects/${p.id}/endpoints`,
        { method: 'POST', path: '/bad', graphql: { schema: 'type X {' } },
        u.token,
      ),
      400,
      'validation_failed',
    );
  });
});
