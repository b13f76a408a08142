/**
 * The Fastify app: everything that is not mock traffic. Auth hook, JSON body parsing with the
 * contract's errors, the management routes, the request log, OpenAPI, health, and the dashboard's
 * static files.
 */
import fs from 'node:fs';
import { type Server, STATUS_CODES } from 'node:http';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerFactory, LogController } from 'fastify';
import type { Logger } from 'pino';
import { isUnavailable } from '../domain/driver-errors.js';
import { AppError, errorBody, validationError } from '../domain/errors.js';
import { AJV_OPTIONS } from '../domain/validator.js';
import { apiKeyRoutes } from './api-keys.js';
import { authRoutes } from './auth-routes.js';
import { deliverPayloadTooLarge } from './body-limit.js';
import { collectionRoutes } from './collection-routes.js';
import type { ApiDeps } from './context.js';
import { sendError } from './errors.js';
import { installGuards, isApiPath } from './guards.js';
import { importRoutes } from './import-routes.js';
import { interopRoutes } from './interop-routes.js';
import { type LazySchemas, lazySchemaController } from './lazy-schemas.js';
import { logRoutes } from './log-routes.js';
import { mcpRoutes } from './mcp-routes.js';
import { presetRoutes } from './preset-routes.js';
import { projectRoutes } from './project-routes.js';
import { ruleRoutes } from './rule-routes.js';
import { socketRoutes } from './socket-routes.js';
import { templateRoutes } from './template-routes.js';

const BODY_LIMIT = 1024 * 1024;
/** Record ids are base64url (src/domain/ids.ts); a route parameter of another shape names nothing. */
const ID_SHAPE = /^[A-Za-z0-9_-]{1,100}$/;

export interface AppOptions extends ApiDeps {
  logger: Logger;
  serverFactory: FastifyServerFactory;
  webDir: string | null;
  version: string;
  /** `mockyard serve --file`: the admin token authenticates as this user (the files' owner) */
  rootOwnerId?: string | null;
  /** the route schemas' compilers (a fresh lazySchemaController() unless given: tests compile them all) */
  schemas?: LazySchemas;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance<Server>> {
  const { store, config } = opts;
  const app = Fastify({
    loggerInstance: opts.logger,
    serverFactory: opts.serverFactory,
    bodyLimit: BODY_LIMIT,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (_addr: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    return503OnClosing: true,
    // each route's validators and serializers compiled at its first request (api/lazy-schemas.ts)
    schemaController: opts.schemas ?? lazySchemaController(),
    ajv: {
      // the options every validator of the service uses (imports too)
      customOptions: AJV_OPTIONS,
    },
    routerOptions: { ignoreTrailingSlash: true },
    // Requests node:http cannot parse, slow clients (headers/request timeout) and oversized headers:
    // answered in the contract's error shape (Fastify's default body is not), then closed.
    clientErrorHandler: (err, socket) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || socket.destroyed) return;
      const e =
        code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('request_timeout')
          : code === 'HPE_HEADER_OVERFLOW'
            ? new AppError('header_too_large')
            : new AppError('validation_failed', 'The request is not valid HTTP', [
                { path: '/', message: 'malformed HTTP request' },
              ]);
      const body = JSON.stringify(errorBody(e));
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      socket.end(
        `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      // a client that never reads must not keep the socket
      setTimeout(() => socket.destroy(), 2000).unref();
    },
    // Fastify answers a bad URL or an over-long parameter with its own body; ours instead.
    frameworkErrors: (err, req, reply) =>
      sendError(err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? new AppError('not_found') : err, req, reply),
  }) as unknown as FastifyInstance<Server>;

  app.decorateRequest('user', null);
  app.decorateRequest('tokenHash', null);
  app.decorateRequest('apiKey', null);
  installGuards(app, { store, config, rootOwnerId: opts.rootOwnerId });

  // JSON bodies only (no text/plain): our own parser, so broken JSON is `invalid_json` and an
  // empty body is no body; any other content type is a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json$/i, { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let nul = false;
    let parsed: unknown;
    try {
      // NUL cannot be stored in a PostgreSQL text column; refuse it on both databases alike
      parsed = JSON.parse(text, (key, value) => {
        if (key.includes('\0') || (typeof value === 'string' && value.includes('\0'))) nul = true;
        return value;
      });
    } catch {
      return done(new AppError('invalid_json'), undefined);
    }
    if (nul) return done(validationError([{ path: '/', message: 'strings must not contain NUL (U+0000)' }]));
    done(null, parsed);
  });

  // Ids are URL-safe tokens: anything else names no record (and never reaches the database, where
  // e.g. a NUL would be an error rather than a miss). A NUL in a query value is a 400.
  app.addHook('preValidation', async (req) => {
    const params = req.params as Record<string, string> | undefined;
    if (params) {
      for (const [k, v] of Object.entries(params)) {
        if ((k === 'id' || k.endsWith('Id')) && !ID_SHAPE.test(v)) throw new AppError('not_found');
      }
    }
    const query = req.query as Record<string, unknown> | undefined;
    if (query) {
      for (const [k, v] of Object.entries(query)) {
        if (
          k.includes('\0') ||
          (typeof v === 'string' && v.includes('\0')) ||
          (Array.isArray(v) && v.join('').includes('\0'))
        )
          throw validationError([{ path: `/${k.replaceAll('\0', '')}`, message: 'must not contain NUL (U+0000)' }]);
      }
    }
  });

  app.setErrorHandler((err, req, reply) => {
    if (isUnavailable(err)) {
      reply.code(503).send(errorBody(new AppError('unavailable')));
      return;
    }
    sendError(err, req, reply);
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mockyard API',
        version: opts.version,
        description:
          'Management API of Mockyard. Mock traffic is served at /m/:projectId<path> (no auth). Errors are {"error":{code,message,details?}}.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });

  // Security headers for everything this app answers (the dashboard and the API). Mock answers
  // never pass through here.
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    reply.header(
      'content-security-policy',
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
    );
    return payload;
  });

  deliverPayloadTooLarge(app, BODY_LIMIT);

  // the process is alive; `?detail=1` on PostgreSQL adds the state of its change feed (docs/api.md)
  app.get<{ Querystring: { detail?: string } }>('/healthz', { schema: { hide: true } }, async (req) =>
    opts.changeFeed && req.query.detail === '1' ? { status: 'ok', changeFeed: opts.changeFeed() } : { status: 'ok' },
  );
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    if (await store.ping()) return { status: 'ok' };
    reply.code(503);
    return errorBody(new AppError('unavailable', 'The database does not answer'));
  });

  authRoutes(app, opts);
  apiKeyRoutes(app, opts);
  projectRoutes(app, opts);
  ruleRoutes(app, opts);
  logRoutes(app, opts);
  interopRoutes(app, opts);
  importRoutes(app, opts);
  collectionRoutes(app, opts);
  mcpRoutes(app, opts);
  presetRoutes(app, opts);
  templateRoutes(app, opts);
  socketRoutes(app, opts);

  app.get('/api/openapi.json', { schema: { hide: true }, config: { access: 'public' } }, async () => app.swagger());
  app.get('/api/docs', { schema: { hide: true }, config: { access: 'public' } }, async (_req, reply) => {
    reply.type('text/html').send(docsPage());
  });

  const webDir = opts.webDir;
  const index = webDir ? path.join(webDir, 'index.html') : null;
  if (webDir && index && fs.existsSync(index)) {
    await app.register(fastifyStatic, {
      root: webDir,
      prefix: '/',
      wildcard: true,
      index: false,
      setHeaders: (res, file) => {
        res.setHeader(
          'cache-control',
          file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }

  const sendIndex = (reply: import('fastify').FastifyReply) =>
    reply
      .header('cache-control', 'no-cache')
      .type('text/html')
      .send(fs.readFileSync(index as string));
  if (index)
    app.get('/', { schema: { hide: true } }, async (_req, reply) =>
      fs.existsSync(index) ? sendIndex(reply) : reply.callNotFound(),
    );

  app.setNotFoundHandler(async (req, reply) => {
    const p = req.url.split('?')[0];
    if (
      isApiPath(p) ||
      !(req.method === 'GET' || req.method === 'HEAD') ||
      !index ||
      /\.[A-Za-z0-9]+$/.test(p) ||
      !fs.existsSync(index)
    ) {
      // API routes, other methods, and missing files (a path with an extension) are 404s
      reply.code(404).send(errorBody(new AppError('not_found', 'No such route')));
      return;
    }
    // single-page app: deep links get index.html
    sendIndex(reply);
  });

  return app;
}

function docsPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mockyard API</title>
<link rel="stylesheet" href="/api/docs.css"></head><body><main id="docs"><h1>Mockyard API</h1>
<p>The OpenAPI 3.1 document is at <a href="/api/openapi.json">/api/openapi.json</a>. The reference with examples is
<code>docs/api.md</code> in the repository.</p></main></body></html>`;
}
