/** An OpenAPI 3.0 contract that uses every check of docs/contract.md, shared by the contract tests. */
export const PETSTORE = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: 'https://api.example.test/v1' }],
  components: {
    securitySchemes: {
      key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      bearer: { type: 'http', scheme: 'bearer' },
      session: { type: 'apiKey', in: 'cookie', name: 'sid' },
    },
    schemas: {
      Pet: {
        type: 'object',
        required: ['id', 'name', 'price'],
        properties: {
          id: { type: 'string', format: 'uuid', readOnly: true },
          name: { type: 'string', minLength: 1 },
          price: { type: 'number', minimum: 0 },
          tag: { type: 'string', nullable: true },
          born: { type: 'string', format: 'date' },
          owner: { type: 'string', format: 'email' },
          secret: { type: 'string', writeOnly: true },
          kind: { type: 'string', enum: ['cat', 'dog'] },
        },
      },
      Cat: {
        type: 'object',
        required: ['type', 'lives'],
        properties: { type: { type: 'string', enum: ['cat'] }, lives: { type: 'integer' } },
      },
      Dog: {
        type: 'object',
        required: ['type', 'bark'],
        properties: { type: { type: 'string', enum: ['dog'] }, bark: { type: 'boolean' } },
      },
    },
  },
  paths: {
    '/pets': {
      get: {
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
          { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          {
            name: 'ids',
            in: 'query',
            style: 'form',
            explode: false,
            schema: { type: 'array', items: { type: 'integer' } },
          },
          { name: 'X-Request-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
        ],
        responses: {
          200: {
            description: 'pets',
            headers: { 'X-Total': { required: true, schema: { type: 'integer' } } },
            content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } },
          },
        },
      },
      post: {
        security: [{ key: [] }, { bearer: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/Pet' } },
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: { name: { type: 'string' }, price: { type: 'number' } },
              },
            },
          },
        },
        responses: {
          201: {
            description: 'made',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
        },
      },
    },
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer', format: 'int32' } }],
      get: {
        parameters: [{ name: 'sid', in: 'cookie', required: true, schema: { type: 'string', minLength: 3 } }],
        responses: {
          200: {
            description: 'one',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
          default: {
            description: 'error',
            content: { 'application/json': { schema: { type: 'object', required: ['error'] } } },
          },
        },
      },
    },
    '/animals': {
      post: {
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
                discriminator: { propertyName: 'type' },
              },
            },
          },
        },
        responses: { 204: { description: 'ok' } },
      },
    },
  },
};

export const PET = { name: 'Rex', price: 9.5, tag: null, born: '2020-02-29', owner: 'a@b.test', kind: 'dog' };
