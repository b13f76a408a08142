/**
 * GraphQL subscriptions (docs/graphql.md) with the real client libraries: `graphql-ws` over a
 * WebSocket and `graphql-sse` in distinct-connections mode, fed by channel pushes and by writes to
 * bound collections (GraphQL mutations and REST resources), per mock session.
 */
import { createClient as sseClient } from 'graphql-sse';
import { createClient as wsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SDL = `
  type User { id: ID! name: String! }
  input NewUser { name: String! }
  type Query { users: [User!]! }
  type Mutation { createUser(input: NewUser!): User! }
  type Subscription { userCreated: User! ticker: String! }
`;

describe('GraphQL subscriptions', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { defaultPlan: 'unlimited' });
  });
  afterAll(() => s.close());

  async function setup() {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'users', seed: [] }, u.token);
    await c.endpoint(u.token, p.id, {
      method: 'POST',
      path: '/graphql',
      graphql: {
        schema: SDL,
        bindings: {
          'Query.users': { collection: 'users', operation: 'list' },
          'Mutation.createUser': { collection: 'users', operation: 'create' },
          'Subscription.userCreated': { collection: 'users', operation: 'create' },
        },
      },
    });
    await c.endpoint(u.token, p.id, {
      method: 'POST',
      path: '/users',
      data: { collection: 'users', operation: 'create' },
    });
    return { c, u, p, url: `${s.running.url}/m/${p.id}/graphql` };
  }

  it('graphql-ws: a subscription gets bound creates (GraphQL and REST) and channel pushes of its session', async () => {
    const { c, u, p, url } = await setup();
    const client = wsClient({
      url: url.replace('http', 'ws'),
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers: { 'x-mockyard-session': 's1' } });
        }
      },
    });
    const got: unknown[] = [];
    const stop = client.subscribe(
      { query: 'subscription { userCreated { id name } }' },
      {
        next: (v) => got.push(v),
        error: (e) => got.push({ error: String(e) }),
        complete: () => {},
      },
    );
    const ticks: unknown[] = [];
    const stopTicks = client.subscribe(
      { query: 'subscription { ticker }' },
      { next: (v) => ticks.push(v), error: () => {}, complete: () => {} },
    );
    // a query over the same socket
    const q = await new Promise((resolve, reject) => {
      client.subscribe({ query: '{ users { name } }' }, { next: resolve, error: reject, complete: () => {} });
    });
    expect(q).toEqual({ data: { users: [] } });
    const gql = (query: string, session: string) =>
      c.mock(p.id, 'POST', '/graphql', {
        headers: { 'content-type': 'application/json', 'x-mockyard-session': session },
        body: JSON.stringify({ query }),
      });
    await expect
      .poll(
        async () => {
          await gql('mutation { createUser(input: {name: "Ann"}) { id } }', 's1');
          return got.length;
        },
        { timeout: 5000, interval: 200 },
      )
      .toBeGreaterThan(0);
    expect(got[0]).toMatchObject({ data: { userCreated: { name: 'Ann' } } });
    const before = got.length;
    await gql('mutation { createUser(input: {name: "Other"}) { id } }', 's2');
    await c.mock(p.id, 'POST', '/users', {
      headers: { 'content-type': 'application/json', 'x-mockyard-session': 's1' },
      body: '{"name":"Bo"}',
    });
    await expect.poll(() => got.length).toBe(before + 1);
    expect(got.at(-1)).toMatchObject({ data: { userCreated: { name: 'Bo' } } });
    const push = await c.api(
      'POST',
      `/api/projects/${p.id}/channels/ticker/messages`,
      { body: '"tick 1"', session: 's1' },
      u.token,
    );
    expect(push.json.delivered).toBe(1);
    await expect.poll(() => ticks).toEqual([{ data: { ticker: 'tick 1' } }]);
    stop();
    stopTicks();
    await client.dispose();
  });

  it('graphql-sse (distinct connections): a subscription streams its events; a query answers once', async () => {
    const { c, u, p, url } = await setup();
    const client = sseClient({ url, singleConnection: false, headers: { 'x-mockyard-session': 's9' } });
    const once = await new Promise((resolve, reject) => {
      client.subscribe({ query: '{ users { name } }' }, { next: resolve, error: reject, complete: () => {} });
    });
    expect(once).toEqual({ data: { users: [] } });
    const got: unknown[] = [];
    const stop = client.subscribe(
      { query: 'subscription { ticker }' },
      { next: (v) => got.push(v), error: () => {}, complete: () => {} },
    );
    await expect
      .poll(
        async () => {
          await c.api(
            'POST',
            `/api/projects/${p.id}/channels/ticker/messages`,
            { body: '"hello"', session: 's9' },
            u.token,
          );
          return got.length;
        },
        { timeout: 5000, interval: 200 },
      )
      .toBeGreaterThan(0);
    expect(got[0]).toEqual({ data: { ticker: 'hello' } });
    stop();
    client.dispose();
  });
});
