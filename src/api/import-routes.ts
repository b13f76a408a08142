/**
 * Imports into a project (docs/interop.md): `POST …/import/openapi` (OpenAPI 3.0/3.1
 * and Swagger 2.0), `…/import/{wiremock|mockoon|postman|har}`, and `…/import`, which detects the
 * format. Bodies are JSON or YAML, up to the import limit (MOCKYARD_MAX_IMPORT_BYTES); that parser
 * lives in this encapsulated scope, so every other management write still answers 415 to anything
 * but JSON. Every route answers the same report.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';
import { RULE_LIMITS } from '../domain/model.js';
import { ImportReportRecord } from '../domain/records.js';
import { ErrorSchema } from '../domain/schemas.js';
import { applyImport, type ImportReport, type OnConflict } from '../interop/apply.js';
import { importPool } from '../interop/openapi-import.js';
import { FOREIGN_FORMATS, type ImportFormat } from '../interop/types.js';
import { type ApiDeps, caller, type Params } from './context.js';
import { contractRoutes } from './contract-routes.js';
import { graphqlRoutes } from './graphql-routes.js';

/** YAML media types accepted by the imports (JSON is parsed by the app's JSON parser). */
export const YAML_TYPES = [
  'application/yaml',
  'application/x-yaml',
  'text/yaml',
  'text/x-yaml',
  'application/vnd.oai.openapi',
];
/** A `.zip` of mock files (a folder of WireMock mappings with __files, a split OpenAPI description…). */
export const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed'];

export const ImportReportSchema = ImportReportRecord;
const OnConflictQuery = Type.Object({
  onConflict: Type.Optional(
    Type.Unsafe<OnConflict>({
      type: 'string',
      enum: ['skip', 'replace', 'fail'],
      description:
        'what to do with records whose route (or collection name) the project has already (default fail: 409, nothing created)',
    }),
  ),
});
const OpenApiQuery = Type.Object({
  ...OnConflictQuery.properties,
  contract: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'attach the document as the project contract (default true; docs/contract.md)',
    }),
  ),
});
const AnyDocument = (description: string) => Type.Unknown({ description });

const DESCRIBED: Record<string, string> = {
  openapi: 'Create one endpoint per operation of an OpenAPI 3.0/3.1 or Swagger 2.0 document (JSON or YAML)',
  wiremock: 'Import WireMock stub mappings: one stub, or {mappings: [...]}',
  mockoon: 'Import a Mockoon environment file',
  postman: 'Import a Postman collection v2.0/v2.1 (saved example responses become answers)',
  har: 'Import a HAR 1.2 capture (each entry’s response becomes an answer)',
};

/** The report as JSON text in pieces, yielding to the event loop between them. */
function reportStream(report: ImportReport): Readable {
  const parts = function* () {
    yield `{"format":${JSON.stringify(report.format)}`;
    for (const key of ['created', 'replaced', 'skipped', 'warnings'] as const) {
      yield `,${JSON.stringify(key)}:[`;
      const list: unknown[] = report[key];
      for (let i = 0; i < list.length; i += 50)
        yield (i === 0 ? '' : ',') +
          list
            .slice(i, i + 50)
            .map((x) => JSON.stringify(x))
            .join(',');
      yield ']';
    }
    yield '}';
  };
  const it = parts();
  return new Readable({
    read() {
      setImmediate(() => {
        const next = it.next();
        this.push(next.done ? null : next.value);
      });
    },
  });
}

export function importRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { store, config } = deps;
  const tags = ['interop'];
  app.register(async (scope) => {
    // The body goes to the import worker as text: parsing 32 MiB of JSON or YAML is worker work too.
    // The routes' bodyLimit (the import limit, 32 MiB by default) applies to these parsers.
    // It goes as bytes, moved (not copied) to the worker, which decodes it.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(['application/json', ...YAML_TYPES], { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );

    contractRoutes(scope, deps, YAML_TYPES);
    // zips on the import routes only (the contract takes one document)
    scope.addContentTypeParser(ZIP_TYPES, { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    // a GraphQL schema comes as SDL text too: those media types on its route only
    scope.register(async (inner) => {
      inner.addContentTypeParser(['application/graphql', 'text/plain'], { parseAs: 'buffer' }, (_req, body, done) =>
        done(null, body),
      );
      graphqlRoutes(inner, deps);
    });

    const route = (url: string, format: ImportFormat | null, summary: string) =>
      scope.post<{
        Params: Params<'projectId'>;
        Querystring: { onConflict?: OnConflict; contract?: 'true' | 'false' };
        Body: unknown;
      }>(
        url,
        {
          bodyLimit: config.maxImportBytes,
          schema: {
            tags,
            summary,
            consumes: ['application/json', ...YAML_TYPES, ...ZIP_TYPES],
            querystring: format === 'openapi' || format === null ? OpenApiQuery : OnConflictQuery,
            body: AnyDocument(summary),
            response: { 200: ImportReportSchema, 409: ErrorSchema },
          },
        },
        async (req, reply) => {
          const me = caller(req);
          const project = await store.projects.require(me.id, req.params.projectId);
          const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
          const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
          const zip = ZIP_TYPES.includes(type);
          // an OpenAPI or Swagger import attaches its document as the contract too (docs/contract.md),
          // loaded by the same worker task as the mocks
          const withContract = !zip && (format === 'openapi' || format === null) && req.query.contract !== 'false';
          const { conv: converted, contract } = zip
            ? { conv: await importPool().convertZip(me.id, body, config.maxImportBytes), contract: null }
            : withContract
              ? await importPool().convertWithContract(me.id, body, YAML_TYPES.includes(type), format)
              : { conv: await importPool().convert(me.id, body, YAML_TYPES.includes(type), format), contract: null };
          const report = await applyImport(store, me.id, project, converted, {
            onConflict: req.query.onConflict ?? 'fail',
            maxEndpoints: config.maxEndpointsPerProject,
            rulesPerEndpoint: RULE_LIMITS[me.plan],
            storage: config.caps,
          });
          const notAttached = (why: string) =>
            report.warnings.push({ pointer: '', message: `the document is not attached as the contract: ${why}` });
          if (zip && (converted.format === 'openapi' || converted.format === 'swagger'))
            report.warnings.push({
              pointer: '',
              message:
                'a description from a zip is not attached as the contract: attach one document with PUT …/contract',
            });
          else if (contract instanceof AppError) notAttached(contract.message);
          else if (contract !== null) {
            try {
              await store.contracts.put(me.id, project.id, contract);
            } catch (e) {
              notAttached(e instanceof Error ? e.message : String(e));
            }
          }
          // a report of thousands of endpoints is written a piece at a time, not serialized in one go
          return reply.type('application/json').send(reportStream(report));
        },
      );

    route('/api/projects/:projectId/import/openapi', 'openapi', DESCRIBED.openapi);
    for (const f of FOREIGN_FORMATS) route(`/api/projects/:projectId/import/${f}`, f, DESCRIBED[f]);
    route(
      '/api/projects/:projectId/import',
      null,
      'Import a document of any supported format, detected from its content (400 unknown_format otherwise)',
    );
  });
}
