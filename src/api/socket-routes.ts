/**
 * WebSocket mocks from tests (docs/websocket.md): `POST …/channels/:channel/messages` pushes a message
 * to the project's sockets on a channel (in one mock session), on every process; `GET …/sockets`
 * lists this process's open sockets.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';
import { CHANNEL_NAME, WS_LIMITS } from '../domain/sockets.js';
import { type ApiDeps, caller, type Params } from './context.js';

const tags = ['websocket'];

export function socketRoutes(app: FastifyInstance, { store, sockets }: ApiDeps): void {
  app.post<{ Params: Params<'projectId' | 'channel'>; Body: { body: string; session?: string } }>(
    '/api/projects/:projectId/channels/:channel/messages',
    {
      schema: {
        tags,
        summary: "Send a message to the project's sockets on a channel (in a mock session), on every process",
        body: Type.Object(
          {
            body: Type.String({ maxLength: WS_LIMITS.messageBytes }),
            session: Type.Optional(
              Type.String({ maxLength: 200, description: 'the sockets of this mock session (default: none)' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          202: Type.Object({ delivered: Type.Integer({ description: 'sockets of this process that got it' }) }),
        },
      },
    },
    async (req, reply) => {
      await store.projects.require(caller(req).id, req.params.projectId);
      if (!CHANNEL_NAME.test(req.params.channel))
        throw new AppError('validation_failed', 'channel names are 1–100 of A-Z, a-z, 0-9 and _ . : -', [
          { path: '/channel', message: 'not a channel name' },
        ]);
      const delivered =
        sockets?.publish(req.params.projectId, req.params.channel, req.body.session ?? '', req.body.body) ?? 0;
      reply.code(202);
      return { delivered };
    },
  );

  app.get<{ Params: Params<'projectId'> }>(
    '/api/projects/:projectId/sockets',
    { schema: { tags, summary: "The project's open WebSockets on this process" } },
    async (req) => {
      await store.projects.require(caller(req).id, req.params.projectId);
      return sockets?.list(req.params.projectId) ?? [];
    },
  );
}
