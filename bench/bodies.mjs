// The answers every benchmark scenario expects, shared by the harness (bench/run.mjs, which also creates
// them in Mockyard over its API) and the bare node:http reference (bench/node-http-server.mjs).

/** S1 and S6: a fixed JSON body of about 100 bytes. */
export const USERS_BODY =
  '{"users":[{"id":1,"name":"Ada Lovelace","role":"admin"},{"id":2,"name":"Linus Torvalds","role":"user"}]}';
/** S2: the three tiers. */
export const TIER_BODY = { vip: '{"tier":"vip"}', beta: '{"tier":"beta"}', free: '{"tier":"free"}' };
/** S3: the endpoint's templated default body (Mockyard) and what it renders to. */
export const ECHO_TEMPLATE = '{"hello":"{{request.query.name}}","id":"{{$uuid}}"}';
/** S3b: a Handlebars body with a loop over 50 items and a few helpers (docs/templates.md), and what it renders to. */
export const EACH_TEMPLATE =
  '{"for":"{{request.query.name}}","items":[{{#each (range 1 50)}}{"id":{{this}},"name":"{{uppercase (concat "item-" this)}}","even":{{isEven this}},"price":{{multiply this 1.5}}}{{#unless @last}},{{/unless}}{{/each}}]}';
export const eachBody = (name) =>
  JSON.stringify({
    for: name,
    items: Array.from({ length: 50 }, (_, i) => ({
      id: i + 1,
      name: `ITEM-${i + 1}`,
      even: (i + 1) % 2 === 0,
      price: (i + 1) * 1.5,
    })),
  });
/** S11: a GraphQL schema and a 3-level query of 20 fields (docs/graphql.md). */
export const GQL_SCHEMA = `type Address { street: String! city: String! zip: String! country: String! }
type Company { name: String! url: String! address: Address! }
type User { id: ID! name: String! email: String! age: Int! active: Boolean! phone: String! title: String! score: Float! createdAt: String! avatar: String! bio: String! company: Company! }
type Query { user: User! }`;
export const GQL_QUERY =
  '{ user { id name email age active phone title score createdAt avatar bio company { name url address { street city zip country } } } }';
export const GQL_BODY = JSON.stringify({ query: GQL_QUERY });
/** node:http's answer of the same shape (a fixed one: its cost is reading the body and writing this). */
export const GQL_ANSWER = JSON.stringify({
  data: {
    user: {
      id: 'f3b1c2d4-0000-4000-8000-000000000001',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      age: 36,
      active: true,
      phone: '555-0100',
      title: 'Analyst',
      score: 98.5,
      createdAt: '2024-01-15T12:00:00.000Z',
      avatar: 'https://example.com/a.png',
      bio: 'Wrote the first program.',
      company: {
        name: 'Engines Ltd',
        url: 'https://example.com',
        address: { street: '1 Main St', city: 'London', zip: 'N1', country: 'UK' },
      },
    },
  },
});
/** S4 and S4-pg: the three steps of the loop. */
export const SEQ_BODIES = ['{"n":1}', '{"n":2}', '{"n":3}'];
/** S5: the response step served after the store_variable action. */
export const STORE_BODY = '{"saved":true}';
/** S7: the 100 items of a collection served by a bound list endpoint. */
export const ITEMS = Array.from({ length: 100 }, (_, i) => ({
  id: i + 1,
  name: `item ${i + 1}`,
  price: (i % 17) + 0.5,
}));
/** S8: the body each bound create request sends. */
export const NEW_ITEM_BODY = '{"name":"new item","price":9.5}';
