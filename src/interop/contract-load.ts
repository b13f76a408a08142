/**
 * A contract document as the API takes it (docs/contract.md): JSON or YAML text → an OpenAPI 3.0 /
 * 3.1 or Swagger 2.0 document, checked and resolved ($refs inlined, Swagger converted), the resolved
 * form kept as JSON with a recursive schema cut at its first repetition. All of it runs in an import
 * worker (`buildContract`, called by interop/import-worker.ts): a 12 MiB, 1,300-operation description
 * takes a worker about 1.8 s (checking and resolving it 1.1 s, building every schema’s check for the
 * warnings 0.25 s: runtime/contract/schema.ts makes a check once per distinct schema), where on the
 * main thread it held the mocks 10 s.
 */
import { validationError } from '../domain/errors.js';
import { compileContract } from '../runtime/contract/compile.js';
import { parseJsonLenient } from './json-comments.js';
import { importPool, parseYaml } from './openapi-import.js';

type Json = Record<string, unknown>;

export interface LoadedContract {
  format: 'openapi-3.0' | 'openapi-3.1' | 'swagger-2.0';
  /** the document as JSON text (the contract's GET answers it) */
  documentJson: string;
  resolved: string;
  operations: number;
  warnings: { pointer: string; message: string }[];
}

/**
 * A copy of a value whose object graph may have cycles, as a tree: a repeated ancestor becomes `{}`,
 * a shared object is copied at each use (what JSON text of it would read back as).
 */
function acyclicCopy(v: unknown): unknown {
  const stack: object[] = [];
  const copy = (x: unknown): unknown => {
    if (x === null || typeof x !== 'object') return x;
    if (stack.includes(x)) return {};
    stack.push(x);
    try {
      if (Array.isArray(x)) return x.map(copy);
      const out: Record<string, unknown> = {};
      // a member JSON text would leave out is left out here too; the objects are plain (parsed, then
      // dereferenced), and for…in copies the 12 MiB description's 3 times faster than Object.entries
      for (const k in x) {
        const y = (x as Record<string, unknown>)[k];
        if (y !== undefined) out[k] = copy(y);
      }
      return out;
    } finally {
      stack.pop();
    }
  };
  return copy(v);
}

export function parseDocument(text: string, yaml: boolean): unknown {
  const trimmed = text.trimStart();
  if (!yaml || trimmed.startsWith('{')) {
    try {
      // JSON with comments, as an import of the same document reads it (json-comments.ts)
      return parseJsonLenient(text);
    } catch (e) {
      if (!yaml) throw validationError([{ path: '/', message: `the document is not JSON: ${(e as Error).message}` }]);
    }
  }
  return parseYaml(text);
}

/**
 * Loads a contract from its JSON or YAML text (UTF-8 bytes, moved to the worker: the caller keeps no
 * use of them) in an import worker; throws the API's error.
 */
export function loadContract(owner: string, bytes: Uint8Array, yaml: boolean): Promise<LoadedContract> {
  return importPool().contract(owner, bytes, yaml);
}

/** A contract's document, checked, resolved and compiled, in the calling thread (the import worker). */
export async function buildContract(
  input: unknown,
  load: (doc: unknown) => Promise<{ doc: Json; swagger: boolean }>,
): Promise<LoadedContract> {
  // the document as it came, before dereferencing (which may inline its $refs in place)
  const documentJson = JSON.stringify(input);
  const { doc, swagger } = await load(input);
  const version = String((input as Json).openapi ?? '');
  const format = swagger ? 'swagger-2.0' : version.startsWith('3.1') ? 'openapi-3.1' : 'openapi-3.0';
  // the tree is compiled as it is, not read back from its text (26 MB for the 12 MiB description)
  const tree = acyclicCopy(doc);
  const resolved = JSON.stringify(tree);
  const compiled = compileContract(format, tree as Json);
  const warnings: LoadedContract['warnings'] = [];
  if (compiled.operations.length === 0) warnings.push({ pointer: '/paths', message: 'the contract has no operations' });
  // every check is built once here, so a schema AJV cannot take is said now, not at the first request
  for (const op of compiled.operations) {
    const c = op.checks();
    const schemas = [
      ...c.params.map((p) => p.check),
      ...(c.body?.media.map((m) => m.check) ?? []),
      ...[...c.responses.values()].flatMap((r) => r.media.map((m) => m.check)),
    ];
    for (const s of schemas)
      if (s?.problem)
        warnings.push({
          pointer: `/paths/${op.template.replaceAll('~', '~0').replaceAll('/', '~1')}/${op.method.toLowerCase()}`,
          message: `a schema is not checked: ${s.problem}`,
        });
  }
  return {
    format,
    documentJson,
    resolved,
    operations: compiled.operations.length,
    warnings: warnings.slice(0, 100),
  };
}
