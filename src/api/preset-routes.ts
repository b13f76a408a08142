/**
 * `POST /api/projects/:projectId/presets` (docs/streams.md): one call makes a working mock of an LLM
 * API — OpenAI (`POST /v1/chat/completions`, `POST /v1/responses`, `GET /v1/models`) or Anthropic
 * (`POST /v1/messages`) — whose answers echo the last user message, streaming or not as asked; or, with
 * `sample`, the sample project's endpoints, collection and rules (sample-project.ts), as a first mock.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { RULE_LIMITS } from '../domain/constants.js';
import { AppError } from '../domain/errors.js';
import type { Endpoint } from '../domain/model.js';
import type { LlmProvider } from '../domain/streams.js';
import { validateEndpoint, validateRule } from '../domain/validate.js';
import { applyImport } from '../interop/apply.js';
import { convertDocument } from '../interop/convert.js';
import { loadOpenApiDocument } from '../interop/openapi-import.js';
import { type ApiDeps, caller, type Params } from './context.js';
import { SAMPLE_PROJECT } from './sample-project.js';

const PRESETS = {
  openai: [
    ['POST', '/v1/chat/completions', 'openai.chat'],
    ['POST', '/v1/responses', 'openai.responses'],
    ['GET', '/v1/models', null],
  ],
  anthropic: [['POST', '/v1/messages', 'anthropic.messages']],
} as const satisfies Record<string, readonly (readonly [string, string, LlmProvider | null])[]>;

const MODELS = JSON.stringify({
  object: 'list',
  data: [{ id: 'mockyard-model', object: 'model', created: 1_767_225_600, owned_by: 'mockyard' }],
});

export function presetRoutes(app: FastifyInstance, { store, config }: ApiDeps): void {
  app.post<{ Params: Params<'projectId'>; Body: { preset: keyof typeof PRESETS | 'sample' } }>(
    '/api/projects/:projectId/presets',
    {
      schema: {
        tags: ['streams'],
        summary: 'Create the endpoints of an LLM API (openai or anthropic) that answer in its wire format',
        body: Type.Object(
          {
            preset: Type.Unsafe<'openai' | 'anthropic' | 'sample'>({
              type: 'string',
              enum: [...Object.keys(PRESETS), 'sample'],
            }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req, reply) => {
      const me = caller(req);
      const { projectId } = req.params;
      const project = await store.projects.require(me.id, projectId);
      if (req.body.preset === 'sample') {
        // through the import pipeline, as a Mockyard export (every check of an import applies)
        const conv = await convertDocument(SAMPLE_PROJECT, 'mockyard', (d) => loadOpenApiDocument(d, me.id));
        const report = await applyImport(store, me.id, project, conv, {
          onConflict: 'fail',
          maxEndpoints: config.maxEndpointsPerProject,
          rulesPerEndpoint: RULE_LIMITS[me.plan],
          storage: config.caps,
        });
        reply.code(201);
        return { created: report.created };
      }
      const created: Endpoint[] = [];
      for (const [method, path, provider] of PRESETS[req.body.preset]) {
        const input = validateEndpoint(
          provider === null ? { method, path, responseBody: MODELS } : { method, path, statusCode: 200 },
        );
        let endpoint: Endpoint;
        try {
          endpoint = await store.endpoints.create(me.id, projectId, input, config.maxEndpointsPerProject);
        } catch (e) {
          if (e instanceof AppError && e.code === 'conflict')
            throw new AppError('conflict', `The project has an endpoint ${method} ${path} already`);
          throw e;
        }
        if (provider !== null) {
          const rule = validateRule({
            name: `${provider} (echo)`,
            response: { mode: 'loop', steps: [{ statusCode: 200, llm: { provider } }] },
          });
          await store.rules.create(me.id, projectId, endpoint.id, rule, RULE_LIMITS[me.plan]);
        }
        created.push(endpoint);
      }
      reply.code(201);
      return { created };
    },
  );
}
