/**
 * The plan (plan.ts) answers exactly as graphql's executor does with the same random source: every
 * query below is run both ways from one seed and the answers compared whole — unions, interfaces,
 * fragments on both, aliases, `__typename`, enums, nested lists, variables — and the operations a
 * plan leaves to the executor (bindings, directives, introspection, mutations, bad variables) get
 * none.
 */
import type { DocumentNode } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFaker, seededRandom } from '../faker.js';
import type { EvalContext } from '../types.js';
import { checkedDocument, compileGraphql, execution, parseOperation } from './execute.js';

const SCHEMA = `
  enum Role { ADMIN EDITOR VIEWER }
  interface Node { id: ID! }
  type User implements Node { id: ID! name: String email: String role: Role! tags: [String!]! friends: [User!]! }
  type Post implements Node { id: ID! title: String! score: Float createdAt: String author: User! }
  union SearchResult = User | Post
  type Query {
    me: User!
    node(id: ID!): Node
    search(text: String!): [SearchResult!]!
    grid: [[Int!]!]!
    posts(limit: Int = 3): [Post!]!
  }
  type Mutation { rename(name: String!): User! }
`;

const QUERIES: [string, string, Record<string, unknown>?][] = [
  ['fields and aliases', '{ me { id name mail: email role tags } another: me { __typename name } }'],
  ['nested lists', '{ grid posts { title score createdAt author { name friends { name role } } } }'],
  [
    'fragments on an interface and a union',
    `query Find($q: String!) {
      search(text: $q) { __typename ...U ... on Post { title author { ...U } } ... on Node { id } }
      node(id: "1") { __typename id ... on User { name } }
    }
    fragment U on User { name role friends { id } }`,
    { q: 'x' },
  ],
  ['the same key twice, merged', '{ me { friends { name } friends { email } } }'],
];

function context(seed: number): EvalContext {
  const rng = seededRandom(seed);
  const hex = () => Math.floor(rng() * 16).toString(16);
  const uuid = () => Array.from({ length: 32 }, hex).join('');
  return { rng, uuid, now: () => 1_700_000_000_000 } as unknown as EvalContext;
}

const none = async () => ({ kind: 'missing' }) as const;

describe('GraphQL answer plans', () => {
  beforeAll(() => loadFaker());

  const gql = () => {
    const c = compileGraphql({
      schema: SCHEMA,
      bindings: { 'Query.posts': { collection: 'posts', operation: 'list' } },
    });
    if (!c) throw new Error('schema');
    return c;
  };

  /** `query` answered by the executor (a document the endpoint has not kept) and by the plan (kept). */
  async function both(query: string, variables: Record<string, unknown> = {}, operationName?: string) {
    const g = gql();
    const req = { query, variables, operationName };
    const p = parseOperation(req, g);
    if (!p.ok) throw new Error(p.message);
    const fresh = parseOperation(req) as { doc: DocumentNode };
    const executed = await execution(g, fresh.doc, req, context(7), none);
    expect(checkedDocument(g, query, p.doc)).toEqual([]);
    const planned = await execution(g, p.doc, req, context(7), none);
    return { executed, planned, kept: g.documents.get(query) };
  }

  it.each(QUERIES.filter(([what]) => what !== 'nested lists'))('%s: the same answer both ways', async (_w, q, vars) => {
    const { executed, planned, kept } = await both(q, vars);
    expect(executed.errors).toBeUndefined();
    expect(JSON.stringify(planned)).toBe(JSON.stringify(executed));
    expect([...(kept?.plans?.values() ?? [])].every((p) => p !== null)).toBe(true);
  });

  it('a field bound to a collection, a directive, introspection, a mutation: the executor answers', async () => {
    for (const q of [
      QUERIES[1][1], // posts is bound
      '{ me { name @include(if: true) } }',
      '{ __schema { queryType { name } } }',
      'mutation { rename(name: "x") { name } }',
    ]) {
      const { executed, planned, kept } = await both(q);
      expect(JSON.stringify(planned)).toBe(JSON.stringify(executed));
      expect([...(kept?.plans?.values() ?? [])]).toEqual([null]);
    }
  });

  it('variables the operation does not accept get the executor’s errors', async () => {
    const q = 'query Find($q: String!) { search(text: $q) { __typename } }';
    const { executed, planned } = await both(q, {});
    expect(planned.errors?.[0]).toMatchObject({ message: expect.stringMatching(/\$q/) });
    expect(planned).toEqual(executed);
  });

  it('nested lists without bindings: the same answer both ways', async () => {
    const q = '{ grid me { friends { friends { name tags } } } }';
    const { executed, planned } = await both(q);
    expect(executed.errors).toBeUndefined();
    expect(JSON.stringify(planned)).toBe(JSON.stringify(executed));
    expect((planned.data as { grid: number[][] }).grid).toHaveLength(3);
  });
});
