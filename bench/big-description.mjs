// A GitHub-sized OpenAPI description for import load: 400 shared schemas of 30 fields (a sixth of
// them $refs), 650 paths × GET and POST with long descriptions — 12+ MiB, 1,300 operations. Used by
// bench S9 and test/interop/import-load.test.ts.
export const OPERATIONS = 1300;

export function bigDescription() {
  const schemas = {};
  for (let i = 0; i < 400; i++) {
    const props = {};
    for (let j = 0; j < 30; j++)
      props[`field_${j}`] =
        j % 6 === 0
          ? { $ref: `#/components/schemas/Ref${(i + j) % 400}` }
          : { type: j % 3 ? 'string' : 'integer', description: 'A field of the resource. '.repeat(12) };
    schemas[`S${i}`] = { type: 'object', properties: props, description: 'A resource of the API. '.repeat(40) };
    schemas[`Ref${i}`] = {
      type: 'object',
      properties: { id: { type: 'integer' }, login: { type: 'string' }, email: { type: 'string', format: 'email' } },
    };
  }
  const paths = {};
  const op = (name, i) => ({
    operationId: `${name}${i}`,
    description: 'What this operation does, and when to call it. '.repeat(135),
    parameters: [{ name: 'owner', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      200: {
        description: 'ok',
        content: { 'application/json': { schema: { $ref: `#/components/schemas/S${i % 400}` } } },
      },
    },
  });
  for (let i = 0; i < OPERATIONS / 2; i++)
    paths[`/repos/{owner}/thing${i}`] = { get: op('get', i), post: op('post', i) };
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'big', version: '1' }, paths, components: { schemas } });
}
