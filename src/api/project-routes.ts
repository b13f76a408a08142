import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { validationError } from '../domain/errors.js';
import type { Endpoint, Project } from '../domain/model.js';
import { EndpointBody, EndpointPatch, ProjectBody, ProjectPatch, ProjectSchema } from '../domain/schemas.js';
import { validateEndpoint, validateProject } from '../domain/validate.js';
import { type ApiDeps, caller, type Params } from './context.js';
import { ruleView } from './rule-routes.js';

type Json = Record<string, unknown>;

/**
 * A project as the API answers it: with `mockUrl`, the base of its mock URLs — `/m/<slug>` (where
 * `/m/<id>` works too), or with
 * MOCKYARD_MOCK_DOMAIN set the absolute URL of its own mock host (SECURITY.md).
 */
export function projectViewer(config: Pick<Config, 'mockDomain' | 'mockScheme'>): (p: Project) => Project & {
  mockUrl: string;
} {
  const domain = config.mockDomain;
  if (!domain) return (p) => ({ ...p, mockUrl: `/m/${p.slug}` });
  return (p) => ({ ...p, mockUrl: `${config.mockScheme}://${p.slug}.${domain}` });
}

const recordingNeedsTarget = () =>
  validationError([
    { path: '/recording', message: 'recording needs a fallbackUrl: the API whose answers are recorded' },
  ]);

export function projectRoutes(app: FastifyInstance, { store, config }: ApiDeps): void {
  const tags = ['projects'];
  const projectView = projectViewer(config);
  app.get('/api/projects', { schema: { tags, summary: 'The caller’s projects, oldest first' } }, async (req) => {
    const only = req.apiKey?.projectIds;
    const all = await store.projects.list(caller(req).id);
    // a key limited to projects sees only those
    return (only ? all.filter((p) => only.includes(p.id)) : all).map(projectView);
  });

  app.post<{ Body: Json }>(
    '/api/projects',
    { schema: { tags, summary: 'Create a project', body: ProjectBody, response: { 201: ProjectSchema } } },
    async (req, reply) => {
      const me = caller(req);
      const v = validateProject(req.body, false);
      if (v.recording && !v.fallbackUrl) throw recordingNeedsTarget();
      const project = await store.projects.create(
        me.id,
        {
          name: v.name as string,
          fallbackUrl: v.fallbackUrl ?? null,
          slug: v.slug,
          recording: v.recording,
          config: v.config,
          validation: v.validation,
        },
        config.maxProjectsPerUser,
      );
      reply.code(201);
      return projectView(project);
    },
  );

  app.get<{ Params: Params<'id'> }>('/api/projects/:id', { schema: { tags, summary: 'One project' } }, async (req) =>
    projectView(await store.projects.require(caller(req).id, req.params.id)),
  );

  const update = async (req: { params: Params<'id'>; body: Json } & Parameters<typeof caller>[0]) => {
    const me = caller(req);
    const v = validateProject(req.body, true);
    if (v.recording !== undefined || v.fallbackUrl === null) {
      const current = await store.projects.require(me.id, req.params.id);
      const target = v.fallbackUrl !== undefined ? v.fallbackUrl : current.fallbackUrl;
      // no target, no recording: clearing the fallback URL ends a recording
      if (v.recording && !target) throw recordingNeedsTarget();
      if (!target) v.recording = false;
    }
    return projectView(await store.projects.update(me.id, req.params.id, v));
  };
  app.put<{ Params: Params<'id'>; Body: Json }>('/api/projects/:id', { schema: { tags, body: ProjectPatch } }, update);
  app.patch<{ Params: Params<'id'>; Body: Json }>(
    '/api/projects/:id',
    {
      schema: {
        tags,
        summary:
          'Rename, set fallbackUrl, switch record mode, set config variables, or change the slug (409 when taken)',
        body: ProjectPatch,
      },
    },
    update,
  );

  app.delete<{ Params: Params<'id'> }>(
    '/api/projects/:id',
    { schema: { tags, summary: 'Delete a project with its endpoints, rules, storage and request log' } },
    async (req, reply) => {
      await store.projects.delete(caller(req).id, req.params.id);
      reply.code(204).send();
    },
  );

  // ---------------------------------------------------------------------------------------------
  // endpoints

  const etags = ['endpoints'];
  type EP = Params<'projectId' | 'id'>;
  app.get<{ Params: Params<'projectId'> }>(
    '/api/projects/:projectId/endpoints',
    { schema: { tags: etags, summary: 'Endpoints of a project, oldest first' } },
    async (req) => store.endpoints.list(caller(req).id, req.params.projectId),
  );

  app.post<{ Params: Params<'projectId'>; Body: Json }>(
    '/api/projects/:projectId/endpoints',
    { schema: { tags: etags, summary: 'Create an endpoint', body: EndpointBody } },
    async (req, reply) => {
      const me = caller(req);
      await store.projects.require(me.id, req.params.projectId);
      const input = validateEndpoint(req.body);
      const created = await store.endpoints.create(me.id, req.params.projectId, input, config.maxEndpointsPerProject);
      reply.code(201);
      return created;
    },
  );

  app.get<{ Params: EP }>(
    '/api/projects/:projectId/endpoints/:id',
    { schema: { tags: etags, summary: 'One endpoint with its rules in evaluation order' } },
    async (req) => {
      const me = caller(req);
      const e = await store.endpoints.require(me.id, req.params.projectId, req.params.id);
      const rules = await store.rules.list(me.id, req.params.projectId, req.params.id);
      return { ...e, rules: rules.map(ruleView) };
    },
  );

  const updateEndpoint = async (req: { params: EP; body: Json } & Parameters<typeof caller>[0]): Promise<Endpoint> => {
    const me = caller(req);
    const current = await store.endpoints.require(me.id, req.params.projectId, req.params.id);
    return store.endpoints.update(me.id, req.params.projectId, req.params.id, validateEndpoint(req.body, current));
  };
  app.put<{ Params: EP; Body: Json }>(
    '/api/projects/:projectId/endpoints/:id',
    { schema: { tags: etags, body: EndpointPatch } },
    updateEndpoint,
  );
  app.patch<{ Params: EP; Body: Json }>(
    '/api/projects/:projectId/endpoints/:id',
    { schema: { tags: etags, summary: 'Update an endpoint (partial)', body: EndpointPatch } },
    updateEndpoint,
  );

  app.delete<{ Params: EP }>(
    '/api/projects/:projectId/endpoints/:id',
    { schema: { tags: etags } },
    async (req, reply) => {
      await store.endpoints.delete(caller(req).id, req.params.projectId, req.params.id);
      reply.code(204).send();
    },
  );

  // storage ------------------------------------------------------------------------------------

  type SQ = { session?: string };
  const sessionQuery = { type: 'object', properties: { session: { type: 'string', maxLength: 200 } } };
  app.get<{ Params: EP; Querystring: SQ }>(
    '/api/projects/:projectId/endpoints/:id/storage',
    {
      schema: {
        tags: etags,
        summary: 'Stored variables ({name: value}); ?session= for a mock session',
        querystring: sessionQuery,
      },
    },
    async (req) => store.storage.get(caller(req).id, req.params.projectId, req.params.id, req.query.session ?? ''),
  );
  app.delete<{ Params: EP; Querystring: SQ }>(
    '/api/projects/:projectId/endpoints/:id/storage',
    {
      schema: { tags: etags, summary: 'Empty the storage (?session= for one session only)', querystring: sessionQuery },
    },
    async (req, reply) => {
      await store.storage.clear(caller(req).id, req.params.projectId, req.params.id, req.query.session);
      reply.code(204).send();
    },
  );
  type PP = Params<'projectId'>;
  app.get<{ Params: PP; Querystring: SQ }>(
    '/api/projects/:projectId/storage',
    {
      schema: {
        tags,
        summary: 'Project storage ({name: value}, store_variable with scope project); ?session= for a mock session',
        querystring: sessionQuery,
      },
    },
    async (req) => store.storage.getProject(caller(req).id, req.params.projectId, req.query.session ?? ''),
  );
  app.delete<{ Params: PP; Querystring: SQ }>(
    '/api/projects/:projectId/storage',
    {
      schema: {
        tags,
        summary: 'Empty the project storage: of one session with ?session=, else the shared state and every session',
        querystring: sessionQuery,
      },
    },
    async (req, reply) => {
      await store.storage.clearProject(caller(req).id, req.params.projectId, req.query.session);
      reply.code(204).send();
    },
  );
  app.get<{ Params: EP }>(
    '/api/projects/:projectId/endpoints/:id/sessions',
    { schema: { tags: etags, summary: 'Mock sessions (X-Mockyard-Session) seen on this endpoint' } },
    async (req) => store.mockSessions.list(caller(req).id, req.params.projectId, req.params.id),
  );
}
