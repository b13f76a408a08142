/**
 * The sample project a newcomer starts from (docs/api.md "Presets"): a
 * Mockyard export document, imported through the same pipeline as any import — a collection of
 * products with its REST endpoints, a templated greeting, an order endpoint with a rule, and a status
 * endpoint whose answers follow a sequence.
 */
export const SAMPLE_PROJECT = {
  mockyard: 1,
  project: { name: 'Sample shop' },
  collections: [
    {
      name: 'products',
      idField: 'id',
      seed: [
        { id: 1, name: 'Coffee beans', price: 12.5 },
        { id: 2, name: 'Teapot', price: 30 },
        { id: 3, name: 'Mug', price: 8 },
      ],
    },
  ],
  endpoints: [
    {
      method: 'GET',
      path: '/api/hello',
      statusCode: 200,
      contentType: 'application/json',
      responseBody: '{"hello": "{{default request.query.name "world"}}", "at": "{{$isoDate}}"}',
      rules: [],
    },
    ...(['list', 'get', 'create'] as const).map((operation) => ({
      method: operation === 'create' ? 'POST' : 'GET',
      path: operation === 'get' ? '/api/products/:id' : '/api/products',
      statusCode: 200,
      contentType: 'application/json',
      responseBody: '',
      data: { collection: 'products', operation },
      rules: [],
    })),
    {
      method: 'POST',
      path: '/api/orders',
      statusCode: 201,
      contentType: 'application/json',
      responseBody: '{"id": "{{$uuid}}", "status": "created", "item": "{{request.body.item}}"}',
      rules: [
        {
          name: 'VIP customers',
          priority: 1,
          active: true,
          conditions: [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' }],
          response: {
            mode: 'loop',
            steps: [
              {
                statusCode: 201,
                body: '{"id": "{{$uuid}}", "status": "created", "priority": true}',
                headers: { 'content-type': 'application/json' },
              },
            ],
          },
          actions: [],
        },
      ],
    },
    {
      method: 'GET',
      path: '/api/status',
      statusCode: 200,
      contentType: 'application/json',
      responseBody: '{"status": "ok"}',
      rules: [
        {
          name: 'Flaky: twice ok, then 503',
          priority: 1,
          active: true,
          conditions: [],
          response: {
            mode: 'loop',
            steps: [
              { statusCode: 200, body: '{"status": "ok"}', headers: { 'content-type': 'application/json' }, count: 2 },
              {
                statusCode: 503,
                body: '{"status": "unavailable"}',
                headers: { 'content-type': 'application/json' },
              },
            ],
          },
          actions: [],
        },
      ],
    },
  ],
};
