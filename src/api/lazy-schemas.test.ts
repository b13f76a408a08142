import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../test/helpers/server.js';
import { RequestLog } from '../runtime/request-log.js';
import { openStore, type Store } from '../store/index.js';
import { buildApp } from './app.js';
import { lazySchemaController, lazySerializer, lazyValidator } from './lazy-schemas.js';

type V = Parameters<typeof lazyValidator>[0] extends () => infer R ? R : never;

describe('lazy route schemas', () => {
  it('compile a validator at its first call, once, and pass on its errors, context and schemaEnv', () => {
    let made = 0;
    const seen: unknown[] = [];
    const real = ((data: unknown, ctx?: unknown) => {
      seen.push(ctx);
      real.errors = data === 1 ? null : [{ message: `not 1: ${String(data)}` }];
      return data === 1;
    }) as V;
    real.schemaEnv = { env: true };
    const v = lazyValidator(() => {
      made++;
      return real;
    });
    expect(made).toBe(0);
    expect(v(2)).toBe(false);
    expect(v.errors).toEqual([{ message: 'not 1: 2' }]);
    expect(v(1, { parentData: {} })).toBe(true);
    expect(v.errors).toBeNull();
    expect(seen).toEqual([undefined, { parentData: {} }]);
    expect(v.schemaEnv).toEqual({ env: true });
    expect(made).toBe(1);
  });

  it('compile a serializer at its first call, once', () => {
    let made = 0;
    const s = lazySerializer(() => {
      made++;
      return (doc) => `<${JSON.stringify(doc)}>`;
    });
    expect(made).toBe(0);
    expect(s({ a: 1 })).toBe('<{"a":1}>');
    expect(s([2])).toBe('<[2]>');
    expect(made).toBe(1);
  });

  it('validate, coerce and serialize as Fastify does, and report a schema that does not compile', async () => {
    const schemas = lazySchemaController();
    const app = Fastify({ schemaController: schemas, ajv: { customOptions: { coerceTypes: true } } });
    app.get<{ Querystring: { n: number } }>(
      '/n',
      {
        schema: {
          querystring: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
          response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } },
        },
      },
      async (req) => ({ n: req.query.n + 1, secret: 'kept out by the serializer' }),
    );
    app.post('/bad', { schema: { body: { type: 'nope' } } }, async () => ({}));
    await app.ready();
    const ok = await app.inject({ method: 'GET', url: '/n?n=41' });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('{"n":42}');
    const missing = await app.inject({ method: 'GET', url: '/n' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toContain("must have required property 'n'");
    // the bad schema did not stop the start; its route fails, and compileAll names it
    expect((await app.inject({ method: 'POST', url: '/bad', payload: {} })).statusCode).toBe(500);
    const compiled = schemas.compileAll();
    expect(compiled.filter((c) => c.error).map((c) => `${c.method} ${c.url} ${c.part}`)).toEqual(['POST /bad body']);
    // GET /n's two, again for the HEAD route Fastify adds, and POST /bad's body
    expect(compiled.map((c) => `${c.method} ${c.part}`).sort()).toEqual([
      'GET querystring',
      'GET response 200',
      'HEAD querystring',
      'HEAD response 200',
      'POST body',
    ]);
    await app.close();
  });

  describe("the admin API's routes", () => {
    let dir: string;
    let store: Store;
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-schemas-'));
      store = await openStore(`sqlite:${path.join(dir, 'db.sqlite')}`);
    });
    afterAll(async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('all compile, and none has a headers schema (Fastify would not lower-case it)', async () => {
      const log = pino({ level: 'silent' });
      const schemas = lazySchemaController();
      const config = testConfig(`sqlite:${path.join(dir, 'db.sqlite')}`);
      const requestLog = new RequestLog(store, log, { keepPerProject: 100 });
      const app = await buildApp({
        config,
        store,
        requestLog,
        logger: log,
        webDir: null,
        version: 'test',
        schemas,
        serverFactory: (handler) => http.createServer(handler),
      });
      await app.ready();
      const compiled = schemas.compileAll();
      expect(compiled.filter((c) => c.error)).toEqual([]);
      expect(compiled.filter((c) => c.part === 'headers')).toEqual([]);
      // the API's request and response schemas were all handed over (more than 60 of them)
      expect(compiled.filter((c) => c.part === 'body').length).toBeGreaterThan(20);
      expect(compiled.filter((c) => c.part.startsWith('response')).length).toBeGreaterThan(20);
      await app.close();
    });
  });
});
