/**
 * Shared shapes of the mock runtime. Everything here is free of HTTP framework and SQL.
 */

/** An answer kept by an http_request action with `saveAs` ({{vars.NAME.status}} etc.). */
export interface SavedResponse {
  status: number;
  /** lower-case header names */
  headers: Record<string, string>;
  body: string;
}

export type VarValue = string | SavedResponse;

/** The parts of a mock request that conditions and templates read. Objects are null-prototype. */
export interface RequestView {
  /** upper case, e.g. GET */
  method: string;
  /** request path after the /m/:projectId prefix, without query string, as received (e.g. /users/42) */
  path: string;
  /** raw query string without the leading ?, e.g. a=1&b=2 ('' when none) */
  rawQuery: string;
  /** first value of each query parameter, decoded */
  query: Record<string, string>;
  /** lower-case header names; repeated headers joined with ', ' */
  headers: Record<string, string>;
  /** one header by lower-case name, as in `headers` (without building all of them) */
  header(name: string): string | undefined;
  /** one query parameter, as in `query` (without parsing all of them when none is encoded) */
  queryParam(name: string): string | undefined;
  /** raw body as UTF-8 text ('' when none) */
  body: string;
  /** values of :name path segments (decoded) */
  params: Record<string, string>;
}

/**
 * What one request's evaluation sees. Randomness, clock and ids are injected so tests (and
 * X-Mockyard-Seed) can make them deterministic.
 */
/** What conditions read of a GraphQL request (runtime/graphql/request.ts). */
export interface GraphqlRequestView {
  operationName: string | undefined;
  type: 'query' | 'mutation' | 'subscription' | undefined;
  variables: Record<string, unknown>;
  /** the top-level fields of the operation, by name (aliases resolved) */
  fields: readonly string[];
}

export interface EvalContext {
  readonly req: RequestView;
  /** request-scoped variables (set_variable, http_request saveAs) */
  readonly vars: Map<string, VarValue>;
  /** the endpoint's stored variables (store_variable), as seen by this request */
  readonly storage: Map<string, string>;
  /** the project's stored variables (store_variable with scope project), as seen by this request */
  readonly projectStorage: Map<string, string>;
  /** item counts of the collections a template reads, as this request's session sees them */
  readonly collectionCounts?: Map<string, number>;
  /** items of the collections a template lists (`collection.NAME.items`), as this request's session sees them */
  readonly collectionItems?: Map<string, readonly unknown[]>;
  /** the project's config variables (`{{config.NAME}}`) */
  readonly config?: ReadonlyMap<string, string>;
  /** a GraphQL endpoint's request, parsed when first read (docs/graphql.md); absent elsewhere */
  readonly graphql?: () => GraphqlRequestView | null;
  /** the WebSocket message being answered (`{{message.text}}`, `{{message.json.a}}`) */
  readonly message?: { readonly text: string; json(): unknown };
  /** uniform in [0, 1) */
  rng(): number;
  /** ms since epoch */
  now(): number;
  /** a fresh RFC 4122 v4 uuid string */
  uuid(): string;
  /**
   * The body parsed as JSON, parsed at most once per request:
   * `{ok: true, value}` or `{ok: false}` when the body is empty or not JSON.
   */
  json(): { ok: true; value: unknown } | { ok: false };
  /** characters one rendered template may hold (docs/limits.md); 1 MiB when not given */
  readonly renderLimit?: number;
  /** loop iterations one template render may run (`MOCKYARD_TEMPLATE_MAX_ITERATIONS`); 10,000 when not given */
  readonly iterationLimit?: number;
  /** ms this request has spent matching regular expressions (src/runtime/conditions.ts) */
  regexMs?: number;
  /** while a step's events are written: the event's number (from 0) and the repetition */
  stream?: { index: number; round: number };
}
