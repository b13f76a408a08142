/**
 * A set of mock files read as one (docs/interop.md "Folders and zips"): a folder on disk
 * (`serve --file`, `mockyard import <folder>`) or an uploaded `.zip`. Files are named by relative
 * paths with `/`; nothing outside the bundle is ever read — a name with `..` that climbs out, an
 * absolute name, or a symbolic link that leads out reads as missing.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../domain/errors.js';

export interface Bundle {
  /** the files that may hold mocks (.json, .yaml, .yml outside skipped folders), in path order */
  readonly documents: readonly string[];
  /**
   * the folder the documents were given in ('' for the whole bundle): Mockoon files and OpenAPI parts
   * are read inside it only (WireMock's `__files` may sit beside it)
   */
  readonly scope: string;
  /** a file's bytes, or null when it is missing, outside the bundle, or larger than `max` */
  read(rel: string, max: number): Promise<Buffer | null>;
  /** the names in a folder of the bundle ('' is its root) */
  children(dir: string): Promise<string[]>;
}

const DOCUMENT = /\.(json|ya?ml)$/i;
/** Folders that hold no mappings (any letter case: WireMock users write `__Files` too). */
const SKIPPED = new Set(['node_modules', '__files']);
const skipped = (rel: string) =>
  rel.split('/').some((seg, i, all) => i < all.length - 1 && (seg.startsWith('.') || SKIPPED.has(seg.toLowerCase())));

/** Is `rel` inside the bundle's scope? */
export const inScope = (b: Bundle, rel: string) => b.scope === '' || rel === b.scope || rel.startsWith(`${b.scope}/`);

/** `rel` joined to `dir` inside the bundle, or null when it leaves it (or is absolute). */
export function within(dir: string, rel: string): string | null {
  if (rel.includes('\0') || rel.startsWith('/') || /^[A-Za-z]:/.test(rel) || rel.includes('\\')) return null;
  const joined = path.posix.normalize(path.posix.join(dir, rel));
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return null;
  return joined === '.' ? '' : joined;
}

/** Upper bounds of an uploaded zip. */
export interface ZipLimits {
  /** bytes once inflated, all files together */
  maxBytes: number;
  maxFiles: number;
}

/** An uploaded `.zip` (read in the import worker). */
export async function zipBundle(bytes: Uint8Array, limits: ZipLimits): Promise<Bundle> {
  const { unzipSync } = await import('fflate');
  let declared = 0;
  let count = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (f) => {
        if (f.name.endsWith('/') || within('', f.name) === null) return false;
        count++;
        declared += f.originalSize;
        if (count > limits.maxFiles || declared > limits.maxBytes)
          throw new AppError(
            'payload_too_large',
            `The zip holds more than ${limits.maxFiles} files or ${limits.maxBytes} bytes once inflated`,
          );
        return true;
      },
    });
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError('validation_failed', `The body is not a readable zip: ${(e as Error).message}`, [
      { path: '/', message: 'not a zip archive' },
    ]);
  }
  const map = new Map<string, Buffer>();
  let total = 0;
  for (const [name, data] of Object.entries(files)) {
    total += data.byteLength;
    // a declared size can lie: the inflated bytes are counted too
    if (total > limits.maxBytes)
      throw new AppError('payload_too_large', `The zip holds more than ${limits.maxBytes} bytes once inflated`);
    map.set(within('', name) as string, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }
  // a zip of one folder (`mocks/…`) reads as that folder
  const names = [...map.keys()];
  const top = names[0]?.split('/')[0];
  const strip =
    top !== undefined && names.every((n) => n.startsWith(`${top}/`)) && !DOCUMENT.test(top) ? `${top}/` : '';
  const byName = new Map([...map].map(([n, d]) => [n.slice(strip.length), d]));
  return {
    scope: '',
    documents: [...byName.keys()].filter((n) => DOCUMENT.test(n) && !skipped(n)).sort(),
    read: async (rel, max) => {
      const d = byName.get(rel);
      return d === undefined || d.byteLength > max ? null : d;
    },
    children: async (dir) => {
      const prefix = dir === '' ? '' : `${dir}/`;
      const out = new Set<string>();
      for (const n of byName.keys()) if (n.startsWith(prefix)) out.add(n.slice(prefix.length).split('/')[0]);
      return [...out];
    },
  };
}

/**
 * A folder on disk. `documents` are those under `docs` (a sub-folder of `root`, or one file); the
 * rest of `root` is read on demand only (WireMock's `__files` beside a mappings folder, a Mockoon
 * file body, a `$ref`'d OpenAPI part).
 */
export async function folderBundle(root: string, docs: string): Promise<Bundle> {
  const base = await fs.realpath(root);
  const documents: string[] = [];
  const start = path.relative(root, docs).split(path.sep).join('/');
  const stat = await fs.stat(docs);
  if (stat.isFile()) documents.push(start);
  else {
    const walk = async (dir: string) => {
      const entries = (await fs.readdir(path.join(root, dir), { withFileTypes: true })).sort((a, b) =>
        a.name < b.name ? -1 : 1,
      );
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const rel = dir === '' ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory()) {
          if (!SKIPPED.has(e.name.toLowerCase())) await walk(rel);
        } else if (e.isFile() && DOCUMENT.test(e.name)) documents.push(rel);
      }
    };
    await walk(start);
  }
  return {
    documents,
    scope: stat.isFile() ? path.posix.dirname(start).replace(/^\.$/, '') : start,
    read: async (rel, max) => {
      const inside = within('', rel);
      if (inside === null) return null;
      try {
        const real = await fs.realpath(path.join(base, inside));
        if (!real.startsWith(`${base}${path.sep}`)) return null;
        const s = await fs.stat(real);
        if (!s.isFile() || s.size > max) return null;
        return await fs.readFile(real);
      } catch {
        return null;
      }
    },
    children: async (dir) => {
      const inside = within('', dir);
      if (inside === null) return [];
      try {
        const real = await fs.realpath(path.join(base, inside));
        if (real !== base && !real.startsWith(`${base}${path.sep}`)) return [];
        return await fs.readdir(real);
      } catch {
        return [];
      }
    },
  };
}
