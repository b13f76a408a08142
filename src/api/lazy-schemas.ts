/**
 * The admin API's route schemas compiled at a route's first request instead of at start.
 *
 * Fastify compiles every route's request validators (AJV) and response serializers
 * (fast-json-stringify) while the server starts. Most routes are never called by a given process
 * (a mock server under load calls none), yet each compiled schema keeps its generated source and
 * closures on the heap: after the bench's small setup, 29 validators and 21 serializers fewer (~0.9
 * MB of their source), 2 MB less live heap in all, and ~0.3 s less of the start (docs/architecture.md,
 * "The admin API's schemas are compiled at a route's first request"). Here each route gets a
 * stand-in that compiles the real one on its first call, with the same compilers and options
 * Fastify's defaults use (`ajv.customOptions`, shared schemas), and hands every later call to it.
 *
 * What Fastify reads off a validator is kept: `errors` after a failed call, and `schemaEnv`, whose
 * presence makes Fastify pass the parent object so that AJV can coerce a root value (reading it
 * compiles). A schema that does not compile now fails its route's first request (a 500) instead of
 * the start: src/api/lazy-schemas.test.ts compiles every route's schemas with these same compilers.
 * Fastify leaves a route's `headers` schema as written when the compiler is not its own default
 * (it would lower-case its property names): no route has one, and that test says so.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Validate = ((data: unknown, ctx?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (doc: unknown) => string;
/** what Fastify says of a schema it hands over (its route, and the part or status) */
type Route = { method?: string; url?: string; httpPart?: string; httpStatus?: string };
type Controller = NonNullable<FastifyServerOptions['schemaController']>;
type ValidatorFactory = NonNullable<NonNullable<Controller['compilersFactory']>['buildValidator']>;

/** A validator that compiles `make()` at its first use and then is it. */
export function lazyValidator(make: () => Validate): Validate {
  let real: Validate | undefined;
  const compiled = (): Validate => {
    real ??= make();
    return real;
  };
  const validate = ((data: unknown, ctx?: unknown) => {
    const f = compiled();
    const ok = ctx === undefined ? f(data) : f(data, ctx);
    validate.errors = f.errors;
    return ok;
  }) as Validate;
  Object.defineProperty(validate, 'schemaEnv', { get: () => compiled().schemaEnv, enumerable: false });
  return validate;
}

/** A serializer that compiles `make()` at its first use and then is it. */
export function lazySerializer(make: () => Serialize): Serialize {
  let real: Serialize | undefined;
  return (doc) => {
    real ??= make();
    return real(doc);
  };
}

/** A route schema compiled by `compileAll`: its route and part, and why it did not compile. */
export interface SchemaCompiled {
  method: string;
  url: string;
  /** `body`, `querystring`, `params`, `headers` or `response <status>` */
  part: string;
  /** set when it did not compile */
  error?: string;
}

/** Fastify's `schemaController` option, and `compileAll` (tests: every route's schemas compile). */
export type LazySchemas = Controller & { compileAll(): SchemaCompiled[] };

/** Fastify's default compilers behind stand-ins: each route's schema compiled at its first use. */
export function lazySchemaController(): LazySchemas {
  const validators = AjvCompiler();
  const serializers = SerializerSelector();
  /** every stand-in's compile, with its route: `compileAll` runs each once more, apart from the stand-in
   * (AJV's cache answers a validator's schema compiled before; a serializer is generated again) */
  const made: { route: Route; make(): unknown }[] = [];
  return {
    compilersFactory: {
      buildValidator: (schemas, options) => {
        const compile = validators(schemas, options);
        return (route) => {
          const make = () => compile(route) as Validate;
          made.push({ route, make });
          return lazyValidator(make) as ReturnType<ReturnType<ValidatorFactory>>;
        };
      },
      buildSerializer: (schemas, options) => {
        const compile = serializers(schemas, options);
        return (route) => {
          const make = () => compile(route);
          made.push({ route, make });
          return lazySerializer(make);
        };
      },
    },
    compileAll: () => {
      const out: SchemaCompiled[] = [];
      for (const { route, make } of made) {
        const one: SchemaCompiled = {
          method: route.method ?? '',
          url: route.url ?? '',
          part: route.httpPart ?? `response ${route.httpStatus}`,
        };
        try {
          make();
        } catch (err) {
          one.error = (err as Error).message;
        }
        out.push(one);
      }
      return out;
    },
  };
}
