/**
 * Mocks as code (docs/testing.md): a file, or a folder of files, in any import format or a Mockyard
 * export, JSON or YAML → one `Converted`. A folder is read recursively in path order (dot-folders,
 * node_modules and WireMock's __files skipped); the stubs of every WireMock file are read as one
 * mappings list, so stubs on one route in several files still become one endpoint; `bodyFileName`s,
 * Mockoon file bodies and an OpenAPI description's `$ref`'d parts are read beside them
 * (interop/bundle-convert.ts), never outside the folder that holds the mocks' folder. Anything that
 * cannot be read, parsed or recognised is a MockFileError naming the file.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { folderBundle } from '../interop/bundle.js';
import { BundleFileError, convertBundle } from '../interop/bundle-convert.js';
import { loadOpenApiDocument } from '../interop/openapi-import.js';
import type { Converted } from '../interop/types.js';

export class MockFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'MockFileError';
  }
}

/** The mocks of `root` (a file or a folder) as one document. */
export async function loadMockFiles(root: string): Promise<Converted> {
  let stat: import('node:fs').Stats;
  try {
    stat = await fs.stat(root);
  } catch (e) {
    throw new MockFileError(
      root,
      (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : String((e as Error).message),
    );
  }
  // WireMock keeps __files beside its mappings folder: the folder above the mocks' is readable too
  const base = stat.isFile() ? path.dirname(path.dirname(root)) : path.dirname(root);
  const bundle = await folderBundle(base, root);
  if (bundle.documents.length === 0) throw new MockFileError(root, 'the folder holds no .json, .yaml or .yml file');
  try {
    return await convertBundle(bundle, (d) => loadOpenApiDocument(d, 'files'));
  } catch (e) {
    if (e instanceof BundleFileError)
      throw new MockFileError(path.join(base, e.file), e.message.slice(e.file.length + 2));
    throw e;
  }
}
