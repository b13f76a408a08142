/**
 * Collections (docs/stateful-mocks.md): their definitions and seeds, what a session sees of them, reset, and
 * `POST …/resources`, which binds the six REST endpoints of a resource to a collection.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { checkSeed, RESOURCE } from '../domain/collections.js';
import { AppError } from '../domain/errors.js';
import { COLLECTION_NAME, type Endpoint } from '../domain/model.js';
import { CollectionRecord } from '../domain/records.js';
import { validateEndpoint } from '../domain/validate.js';
import { compileSeed, seedUsesFaker } from '../runtime/compile.js';
import { seedContext } from '../runtime/context.js';
import { loadFaker } from '../runtime/faker.js';
import type { Store } from '../store/index.js';
import { type ApiDeps, caller, type Params } from './context.js';

/** Loads faker when the collection's seed calls it (the dashboard reads items before any mock does). */
async function loadFakerIfNeeded(store: Store, ownerId: string, projectId: string, name: string): Promise<void> {
  if (!COLLECTION_NAME.test(name)) return;
  const c = await store.collections.get(ownerId, projectId, name);
  if (seedUsesFaker(c.seed)) await loadFaker();
}

type Item = Record<string, unknown>;
const MAX_SEED = 10_000;

const seedSchema = Type.Array(Type.Object({}, { additionalProperties: true }), {
  maxItems: MAX_SEED,
  description:
    'the items every session starts from (objects; an item without the id field gets a version-7 UUID: time-ordered)',
});
const idFieldSchema = Type.String({ minLength: 1, maxLength: 64, description: 'default id' });
const readOnly = { createdAt: Type.Optional(Type.Unknown()), updatedAt: Type.Optional(Type.Unknown()) };
const CollectionBody = Type.Object(
  {
    name: Type.String({ pattern: COLLECTION_NAME.source }),
    idField: Type.Optional(idFieldSchema),
    seed: Type.Optional(seedSchema),
    ...readOnly,
  },
  { additionalProperties: false },
);
const CollectionPatch = Type.Object(
  {
    name: Type.Optional(Type.Unknown()),
    idField: Type.Optional(idFieldSchema),
    seed: Type.Optional(seedSchema),
    ...readOnly,
  },
  { additionalProperties: false },
);
const ResourceBody = Type.Object(
  {
    collection: Type.String({ pattern: COLLECTION_NAME.source }),
    path: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
const sessionQuery = Type.Object({ session: Type.Optional(Type.String({ maxLength: 200 })) });

export function collectionRoutes(app: FastifyInstance, { store, config }: ApiDeps): void {
  const tags = ['collections'];
  type P = Params<'projectId'>;
  type PN = Params<'projectId' | 'name'>;
  const base = '/api/projects/:projectId/collections';
  const named = (name: string) => {
    if (!COLLECTION_NAME.test(name)) throw new AppError('not_found', 'No such collection');
    return name;
  };

  app.get<{ Params: P }>(
    base,
    { schema: { tags, summary: 'Collections of the project, seeds included' } },
    async (req) => store.collections.list(caller(req).id, req.params.projectId),
  );

  app.post<{ Params: P; Body: { name: string; idField?: string; seed?: Item[] } }>(
    base,
    {
      schema: {
        tags,
        summary: 'Create a collection (409 when the name is taken)',
        body: CollectionBody,
        response: { 201: CollectionRecord },
      },
    },
    async (req, reply) => {
      const idField = req.body.idField ?? 'id';
      const seed = checkSeed(req.body.seed ?? [], idField);
      const made = await store.collections.create(caller(req).id, req.params.projectId, req.body.name, {
        idField,
        seed,
      });
      reply.code(201);
      return made;
    },
  );

  app.get<{ Params: PN }>(`${base}/:name`, { schema: { tags, summary: 'One collection' } }, async (req) =>
    store.collections.get(caller(req).id, req.params.projectId, named(req.params.name)),
  );

  const update = async (
    req: { params: PN; body: { idField?: string; seed?: Item[] } } & Parameters<typeof caller>[0],
  ) => {
    const me = caller(req);
    const current = await store.collections.get(me.id, req.params.projectId, named(req.params.name));
    const idField = req.body.idField ?? current.idField;
    const seed = checkSeed((req.body.seed ?? current.seed) as Item[], idField);
    return store.collections.update(me.id, req.params.projectId, current.name, { idField, seed });
  };
  const patchSchema = {
    tags,
    summary: 'Change the seed or id field (every session starts again from the seed)',
    body: CollectionPatch,
  };
  app.put<{ Params: PN; Body: { idField?: string; seed?: Item[] } }>(`${base}/:name`, { schema: patchSchema }, update);
  app.patch<{ Params: PN; Body: { idField?: string; seed?: Item[] } }>(
    `${base}/:name`,
    { schema: patchSchema },
    update,
  );

  app.delete<{ Params: PN }>(
    `${base}/:name`,
    { schema: { tags, summary: 'Delete a collection with every session’s items' } },
    async (req, reply) => {
      await store.collections.delete(caller(req).id, req.params.projectId, named(req.params.name));
      reply.code(204).send();
    },
  );

  app.get<{ Params: PN; Querystring: { session?: string } }>(
    `${base}/:name/items`,
    {
      schema: {
        tags,
        summary: 'The collection as a session sees it now (?session=; none: the shared state)',
        querystring: sessionQuery,
      },
    },
    async (req) => {
      const { projectId } = req.params;
      const render = (seed: Record<string, unknown>[]) => {
        const hasFaker = JSON.stringify(seed).includes('{{');
        return hasFaker ? compileSeed(seed)(seedContext()) : seed;
      };
      // a seed with {{faker …}} needs faker loaded before it is rendered
      return loadFakerIfNeeded(store, caller(req).id, projectId, req.params.name).then(() =>
        store.collections.items(caller(req).id, projectId, named(req.params.name), req.query.session ?? '', render),
      );
    },
  );

  app.post<{ Params: PN; Querystring: { session?: string } }>(
    `${base}/:name/reset`,
    {
      schema: {
        tags,
        summary: 'Back to the seed: one session (?session=), or the shared state and every session',
        querystring: sessionQuery,
      },
    },
    async (req, reply) => {
      await store.collections.reset(caller(req).id, req.params.projectId, named(req.params.name), req.query.session);
      reply.code(204).send();
    },
  );

  app.post<{ Params: P; Body: { collection: string; path: string } }>(
    '/api/projects/:projectId/resources',
    {
      schema: {
        tags,
        summary: 'Create the six REST endpoints of a resource, bound to a collection',
        body: ResourceBody,
      },
    },
    async (req, reply) => {
      const me = caller(req);
      const { projectId } = req.params;
      await store.collections.get(me.id, projectId, req.body.collection);
      const root = req.body.path.replace(/\/+$/, '') || '/';
      const created: Endpoint[] = [];
      const skipped: { method: string; path: string; reason: string }[] = [];
      for (const [method, suffix, operation] of RESOURCE) {
        const path = root === '/' ? suffix || '/' : `${root}${suffix}`;
        const input = validateEndpoint({ method, path, data: { collection: req.body.collection, operation } });
        try {
          created.push(await store.endpoints.create(me.id, projectId, input, config.maxEndpointsPerProject));
        } catch (e) {
          if (!(e instanceof AppError && (e.code === 'conflict' || e.code === 'limit_exceeded'))) throw e;
          skipped.push({
            method,
            path,
            reason: e.code === 'conflict' ? 'an endpoint already answers this route' : e.message,
          });
        }
      }
      reply.code(201);
      return { created, skipped };
    },
  );
}
