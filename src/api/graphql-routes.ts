/**
 * `POST /api/projects/:projectId/import/graphql?path=/graphql` (docs/graphql.md): a schema in SDL, or
 * an introspection result (`{"data":{"__schema":…}}`), becomes a GraphQL endpoint. Registered in the
 * import scope: the body is text or JSON up to the import limit.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError, validationError } from '../domain/errors.js';
import { graphqlLib } from '../domain/graphql.js';
import { validateEndpoint } from '../domain/validate.js';
import { type ApiDeps, caller, type Params } from './context.js';

/** SDL of a body: SDL text as it is, or an introspection result printed as SDL. */
export function schemaText(body: string): string {
  const t = body.trimStart();
  if (!t.startsWith('{')) return body;
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    throw validationError([{ path: '/', message: 'the body is neither SDL nor JSON' }]);
  }
  const o = v as { data?: { __schema?: unknown }; __schema?: unknown };
  const intro = o.data?.__schema !== undefined ? o.data : o.__schema !== undefined ? o : null;
  if (intro === null)
    throw validationError([
      { path: '/', message: 'a JSON body must be an introspection result ({"data":{"__schema":…}})' },
    ]);
  const g = graphqlLib();
  try {
    return g.printSchema(g.buildClientSchema(intro as Parameters<typeof g.buildClientSchema>[0]));
  } catch (e) {
    throw validationError([
      { path: '/data/__schema', message: `not a usable introspection result: ${(e as Error).message}` },
    ]);
  }
}

export function graphqlRoutes(scope: FastifyInstance, { store, config }: ApiDeps): void {
  scope.post<{ Params: Params<'projectId'>; Querystring: { path?: string }; Body: unknown }>(
    '/api/projects/:projectId/import/graphql',
    {
      bodyLimit: config.maxImportBytes,
      schema: {
        tags: ['graphql'],
        summary: 'Create a GraphQL endpoint from a schema in SDL or an introspection result (?path=, default /graphql)',
        consumes: ['application/json', 'application/graphql', 'text/plain'],
        querystring: Type.Object({ path: Type.Optional(Type.String({ maxLength: 1024 })) }),
        body: Type.Unknown({ description: 'SDL text, or an introspection result' }),
      },
    },
    async (req, reply) => {
      const me = caller(req);
      const project = await store.projects.require(me.id, req.params.projectId);
      const text = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : typeof req.body === 'string' ? req.body : '';
      const sdl = schemaText(text);
      const input = validateEndpoint({ method: 'POST', path: req.query.path ?? '/graphql', graphql: { schema: sdl } });
      try {
        const created = await store.endpoints.create(me.id, project.id, input, config.maxEndpointsPerProject);
        reply.code(200);
        return { format: 'graphql', created: [created], replaced: [], skipped: [], warnings: [] };
      } catch (e) {
        if (e instanceof AppError && e.code === 'conflict')
          throw new AppError('conflict', `The project has an endpoint POST ${input.path} already`);
        throw e;
      }
    },
  );
}
