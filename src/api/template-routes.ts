/**
 * Templates (docs/templates.md): `GET /api/templates/helpers`, the one table of helpers the docs, the
 * editor's completion and the tests read; `POST /api/projects/:projectId/templates/render`, a preview
 * against a sample request with the project's config variables.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { TemplateHelper } from '../domain/model.js';
import { TemplateHelperRecord } from '../domain/records.js';
import { renderPreview } from '../runtime/preview.js';
import { CapExceeded } from '../runtime/template.js';
import { HELPER_TABLE } from '../runtime/templates/helpers.js';
import { type ApiDeps, caller, type Params } from './context.js';

const tags = ['templates'];

/** The table as the API shows it (no functions). */
export const helperRows = (): TemplateHelper[] =>
  HELPER_TABLE.map((h) => ({
    name: h.name,
    family: h.family,
    signature: h.signature,
    description: h.description,
    example: h.example,
    ...(h.output !== undefined ? { output: h.output } : {}),
    ...(h.random ? { random: true } : {}),
    ...(h.block ? { block: true } : {}),
    ...(h.aliases && h.aliases.length > 0 ? { aliases: [...h.aliases] } : {}),
  }));

const SampleRequest = Type.Object(
  {
    method: Type.Optional(Type.String({ maxLength: 20 })),
    path: Type.Optional(Type.String({ maxLength: 2048 })),
    query: Type.Optional(Type.Union([Type.String({ maxLength: 8192 }), Type.Record(Type.String(), Type.Unknown())])),
    headers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    body: Type.Optional(Type.Unknown()),
    params: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);

export function templateRoutes(app: FastifyInstance, { store }: ApiDeps): void {
  let rows: ReturnType<typeof helperRows> | null = null;
  app.get(
    '/api/templates/helpers',
    {
      schema: {
        tags,
        summary: 'Every template helper: name, family, signature, description, example and its output',
        response: { 200: Type.Array(TemplateHelperRecord) },
      },
    },
    async () => {
      rows ??= helperRows();
      return rows;
    },
  );

  app.post<{
    Params: Params<'projectId'>;
    Body: { template: string; request?: object; session?: string; seed?: string };
  }>(
    '/api/projects/:projectId/templates/render',
    {
      schema: {
        tags,
        summary: 'Render a template against a sample request (a preview); 400 template_invalid with line and column',
        body: Type.Object(
          {
            template: Type.String({ maxLength: 1024 * 1024 }),
            request: Type.Optional(SampleRequest),
            session: Type.Optional(Type.String({ maxLength: 200 })),
            seed: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req) => {
      const project = await store.projects.require(caller(req).id, req.params.projectId);
      try {
        const r = await renderPreview({
          template: req.body.template,
          request: req.body.request,
          seed: req.body.seed ?? null,
          config: new Map(Object.entries(project.config)),
        });
        if (!r.ok) {
          const { line, column, message } = r.problem;
          throw new AppError(
            'template_invalid',
            `The template does not parse at line ${line}, column ${column}: ${message}`,
            [{ path: '/template', line, column, message }],
          );
        }
        return { output: r.output };
      } catch (e) {
        if (e instanceof CapExceeded) throw new AppError('render_too_large', e.message);
        throw e;
      }
    },
  );
}
