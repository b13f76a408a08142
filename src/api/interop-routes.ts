/**
 * Interop routes (docs/interop.md): OpenAPI import into a project, and export / import of a whole
 * project as one JSON document. The OpenAPI route also takes YAML bodies; that parser lives in an
 * encapsulated scope, so every other management write still answers 415 to anything but JSON.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  checkImport,
  type ExportDocumentInput,
  ExportDocumentSchema,
  exportProject,
  importProject,
} from '../domain/export.js';
import { type Endpoint, METHODS, RULE_LIMITS } from '../domain/model.js';
import { loadOpenApiDocument, parseYaml, planImport, type SkippedOperation } from '../domain/openapi-import.js';
import { ErrorSchema, ProjectSchema } from '../domain/schemas.js';
import { validateEndpoint } from '../domain/validate.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { loadFaker } from '../runtime/faker.js';
import { routeKey } from '../runtime/router.js';
import { type ApiDeps, caller, type Params } from './context.js';
import { projectViewer } from './project-routes.js';

/** YAML media types accepted by the OpenAPI import (JSON is parsed by the app's JSON parser). */
export const YAML_TYPES = [
  'application/yaml',
  'application/x-yaml',
  'text/yaml',
  'text/x-yaml',
  'application/vnd.oai.openapi',
];

const EndpointSchema = Type.Object({
  id: Type.String(),
  projectId: Type.String(),
  method: Type.Unsafe<string>({ type: 'string', enum: [...METHODS] }),
  path: Type.String(),
  statusCode: Type.Integer(),
  responseBody: Type.String(),
  contentType: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const SkippedSchema = Type.Object({ method: Type.String(), path: Type.String(), reason: Type.String() });
const OpenApiImportAnswer = Type.Object({
  created: Type.Array(EndpointSchema),
  skipped: Type.Array(SkippedSchema),
  replaced: Type.Array(EndpointSchema),
});
const OnConflict = Type.Object({
  onConflict: Type.Optional(
    Type.Unsafe<'skip' | 'replace' | 'fail'>({
      type: 'string',
      enum: ['skip', 'replace', 'fail'],
      description:
        'what to do with operations whose route already has an endpoint (default fail: 409, nothing created)',
    }),
  ),
});
const OpenApiBody = Type.Object(
  {},
  {
    additionalProperties: true,
    description: `an OpenAPI 3.0 or 3.1 document, as JSON or YAML (${YAML_TYPES.join(', ')})`,
  },
);

const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

export function interopRoutes(app: FastifyInstance, { store, config }: ApiDeps): void {
  const tags = ['interop'];
  const projectView = projectViewer(config);

  app.register(async (scope) => {
    // The routes' bodyLimit (the import limit, 32 MiB by default) applies to this parser as well.
    scope.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_req, body, done) => {
      const text = String(body);
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, parseYaml(text));
      } catch (e) {
        done(e as Error, undefined);
      }
    });

    scope.post<{
      Params: Params<'projectId'>;
      Querystring: { onConflict?: 'skip' | 'replace' | 'fail' };
      Body: unknown;
    }>(
      '/api/projects/:projectId/import/openapi',
      {
        bodyLimit: config.maxImportBytes,
        schema: {
          tags,
          summary: 'Create one endpoint per operation of an OpenAPI 3.0/3.1 document (JSON or YAML body)',
          consumes: ['application/json', ...YAML_TYPES],
          querystring: OnConflict,
          body: OpenApiBody,
          response: { 200: OpenApiImportAnswer, 409: ErrorSchema },
        },
      },
      async (req) => {
        const me = caller(req);
        const { projectId } = req.params;
        await store.projects.require(me.id, projectId);
        const mode = req.query.onConflict ?? 'fail';
        const doc = await loadOpenApiDocument(req.body, me.id);
        await loadFaker(); // realistic example values (CONTRACT §11); loaded once, on the first import
        const plan = planImport(doc);

        const existing = new Map<string, Endpoint>();
        for (const e of await store.endpoints.list(me.id, projectId))
          existing.set(`${e.method} ${routeKey(e.path)}`, e);
        const fresh: typeof plan.endpoints = [];
        const collisions: { draft: (typeof plan.endpoints)[number]; current: Endpoint }[] = [];
        for (const draft of plan.endpoints) {
          const current = existing.get(`${draft.method} ${draft.routeKey}`);
          if (current) collisions.push({ draft, current });
          else fresh.push(draft);
        }
        if (collisions.length > 0 && mode === 'fail') {
          const details: ErrorDetail[] = collisions.map(({ draft, current }) => ({
            path: `/paths/${pointer(draft.sourcePath)}/${draft.method.toLowerCase()}`,
            message: `${draft.method} ${draft.sourcePath} collides with endpoint ${current.id} (${current.method} ${current.path})`,
          }));
          throw new AppError(
            'conflict',
            `${collisions.length} operation(s) collide with existing endpoints; nothing was created (use ?onConflict=skip or ?onConflict=replace)`,
            details,
          );
        }
        const count = existing.size + fresh.length;
        if (count > config.maxEndpointsPerProject) {
          throw new AppError(
            'limit_exceeded',
            `At most ${config.maxEndpointsPerProject} endpoints per project; the import would make ${count}`,
          );
        }

        const skipped: SkippedOperation[] = [...plan.skipped];
        const created: Endpoint[] = [];
        const replaced: Endpoint[] = [];
        const fields = (d: (typeof plan.endpoints)[number]) =>
          validateEndpoint({
            method: d.method,
            path: d.path,
            statusCode: d.statusCode,
            responseBody: d.responseBody,
            contentType: d.contentType,
          });
        for (const draft of fresh) {
          try {
            created.push(await store.endpoints.create(me.id, projectId, fields(draft), config.maxEndpointsPerProject));
          } catch (e) {
            if (!(e instanceof AppError && e.code === 'conflict')) throw e;
            skipped.push({
              method: draft.method,
              path: draft.sourcePath,
              reason: 'an endpoint on this route was created during the import',
            });
          }
        }
        for (const { draft, current } of collisions) {
          if (mode === 'skip') {
            skipped.push({
              method: draft.method,
              path: draft.sourcePath,
              reason: `endpoint ${current.id} (${current.method} ${current.path}) already answers this route`,
            });
          } else {
            replaced.push(await store.endpoints.update(me.id, projectId, current.id, fields(draft)));
          }
        }
        return { created, skipped, replaced };
      },
    );
  });

  app.get<{ Params: Params<'id'>; Querystring: { storage?: string } }>(
    '/api/projects/:id/export',
    {
      schema: {
        tags,
        summary: 'The project as one versioned JSON document (?storage=true adds stored variables)',
        querystring: Type.Object({
          storage: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['true', 'false', '1', '0'] })),
        }),
        response: { 200: ExportDocumentSchema },
      },
    },
    async (req, reply) => {
      const storage = req.query.storage === 'true' || req.query.storage === '1';
      const doc = await exportProject(store, caller(req).id, req.params.id, { storage });
      const file = doc.project.name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60) || 'project';
      reply.header('content-disposition', `attachment; filename="${file}.mockyard.json"`);
      return doc;
    },
  );

  app.post<{ Querystring: { name?: string }; Body: ExportDocumentInput }>(
    '/api/projects/import',
    {
      bodyLimit: config.maxImportBytes,
      schema: {
        tags,
        summary: 'Create a project from an export document (?name= overrides its name)',
        querystring: Type.Object({ name: Type.Optional(Type.String({ maxLength: 1000 })) }),
        body: ExportDocumentSchema,
        response: { 201: ProjectSchema },
      },
    },
    async (req, reply) => {
      const me = caller(req);
      const rulesPerEndpoint = RULE_LIMITS[me.plan];
      const checked = checkImport(req.body, req.query.name, {
        rulesPerEndpoint,
        endpointsPerProject: config.maxEndpointsPerProject,
      });
      const project = await importProject(store, me.id, checked, {
        rulesPerEndpoint,
        projectsPerUser: config.maxProjectsPerUser,
      });
      reply.code(201);
      return projectView(project);
    },
  );
}
