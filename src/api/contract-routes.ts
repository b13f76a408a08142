/**
 * A project's contract (docs/contract.md): `PUT/GET/DELETE /api/projects/:projectId/contract` and
 * `GET …/contract/lint`. Registered in the import scope: the PUT body is JSON or YAML, up to the
 * import limit, parsed here and resolved by the import workers.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';
import { lintProject } from '../interop/contract-lint.js';
import { loadContract } from '../interop/contract-load.js';
import { type ApiDeps, caller, type Params } from './context.js';

const tags = ['contract'];

export const ContractAnswer = Type.Object({
  format: Type.String({ description: 'openapi-3.0, openapi-3.1 or swagger-2.0' }),
  operations: Type.Integer(),
  warnings: Type.Array(Type.Object({ pointer: Type.String(), message: Type.String() })),
});

export function contractRoutes(scope: FastifyInstance, deps: ApiDeps, yamlTypes: readonly string[]): void {
  const { store, config } = deps;
  scope.put<{ Params: Params<'projectId'>; Body: unknown }>(
    '/api/projects/:projectId/contract',
    {
      bodyLimit: config.maxImportBytes,
      schema: {
        tags,
        summary: "Attach or replace the project's OpenAPI 3.0/3.1 or Swagger 2.0 contract (JSON or YAML)",
        consumes: ['application/json', ...yamlTypes],
        body: Type.Unknown({ description: 'an OpenAPI 3.0 / 3.1 or Swagger 2.0 document' }),
        response: { 200: ContractAnswer },
      },
    },
    async (req) => {
      const me = caller(req);
      await store.projects.require(me.id, req.params.projectId);
      const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      // checked, resolved and compiled in an import worker (the bytes are moved there), then stored
      const loaded = await loadContract(me.id, bytes, yamlTypes.includes(type));
      await store.contracts.put(me.id, req.params.projectId, loaded);
      return { format: loaded.format, operations: loaded.operations, warnings: loaded.warnings };
    },
  );

  scope.get<{ Params: Params<'projectId'> }>(
    '/api/projects/:projectId/contract',
    { schema: { tags, summary: "The project's contract document, as JSON (404 when it has none)" } },
    async (req, reply) => {
      // the stored JSON text as it is: parsing and serialising a 12 MiB document again held the loop ~0.2 s
      const text = await store.contracts.documentText(caller(req).id, req.params.projectId);
      if (text === null) throw new AppError('not_found', 'The project has no contract');
      return reply.type('application/json; charset=utf-8').send(text);
    },
  );

  scope.delete<{ Params: Params<'projectId'> }>(
    '/api/projects/:projectId/contract',
    { schema: { tags, summary: "Remove the project's contract: nothing is validated any more" } },
    async (req, reply) => {
      await store.contracts.delete(caller(req).id, req.params.projectId);
      reply.code(204).send();
    },
  );

  scope.get<{ Params: Params<'projectId'> }>(
    '/api/projects/:projectId/contract/lint',
    {
      schema: {
        tags,
        summary: "Every endpoint's answers checked against the contract, and the operations no endpoint mocks",
      },
    },
    async (req) => {
      const me = caller(req);
      const c = await store.contracts.resolved(me.id, req.params.projectId);
      if (!c) throw new AppError('not_found', 'The project has no contract');
      const project = await store.projects.require(me.id, req.params.projectId);
      const endpoints = [];
      for (const e of await store.endpoints.list(me.id, project.id))
        endpoints.push({ ...e, rules: await store.rules.list(me.id, project.id, e.id) });
      return lintProject(c, endpoints, project.config);
    },
  );
}
