/**
 * Interop routes (docs/interop.md): export / import of a whole project as one JSON document. Imports
 * into an existing project (OpenAPI, Swagger, WireMock, Mockoon, Postman, HAR) are import-routes.ts.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { RULE_LIMITS } from '../domain/model.js';
import { ProjectSchema } from '../domain/schemas.js';
import { type ExportDocumentInput, ExportDocumentSchema, exportProject, importProject } from '../interop/export.js';
import { type ApiDeps, caller, type Params } from './context.js';
import { projectViewer } from './project-routes.js';

export function interopRoutes(app: FastifyInstance, { store, config }: ApiDeps): void {
  const tags = ['interop'];
  const projectView = projectViewer(config);

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
      const project = await importProject(store, me.id, req.body, req.query.name, {
        rulesPerEndpoint,
        endpointsPerProject: config.maxEndpointsPerProject,
        projectsPerUser: config.maxProjectsPerUser,
        storage: config.caps,
      });
      reply.code(201);
      return projectView(project);
    },
  );
}
