/**
 * `mockyard serve --file <path>` (docs/testing.md): the mocks of a file or folder on an
 * in-memory database, at the root path of the port, with no account. The management API stays at
 * /api for requests that carry MOCKYARD_ADMIN_TOKEN (it acts as the files' owner); every other path,
 * `/m/…` included, is a mock path. `--watch` reloads on change, keeps the sequence positions of rules
 * that did not change and applies changed seeds and stored values; a reload that fails keeps the
 * previous mocks and says why on stderr.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Config, loadConfig } from '../config.js';
import { hashPassword } from '../domain/passwords.js';
import type { Converted } from '../interop/types.js';
import { type Running, startServer } from '../server.js';
import { loadMockFiles } from './load.js';
import { type SyncReport, syncProject } from './sync.js';

/** Rules per endpoint in file mode: the files decide (an export holds at most 1,000). */
export const FILE_RULES_PER_ENDPOINT = 1000;

export interface ServeFilesOptions {
  file: string;
  port?: number;
  host?: string;
  watch?: boolean;
  env?: NodeJS.ProcessEnv;
  /** where reload notes and warnings go (stderr) */
  note?: (line: string) => void;
}

export interface ServingFiles {
  running: Running;
  /** resolves after the reload that the last change started (tests) */
  settled(): Promise<SyncReport | null>;
  close(): Promise<void>;
}

function summary(r: SyncReport): string {
  return `${r.created} created, ${r.updated} updated, ${r.removed} removed, ${r.unchanged} unchanged, ${r.warnings.length} warnings`;
}

/** Loads, serves and (with `watch`) follows the files; throws MockFileError on a bad first load. */
export async function serveFiles(opts: ServeFilesOptions): Promise<ServingFiles> {
  const note = opts.note ?? ((line: string) => process.stderr.write(`${line}\n`));
  const file = path.resolve(opts.file);
  const first = await loadMockFiles(file);
  const env = { LOG_LEVEL: 'warn', ...(opts.env ?? process.env) };
  const config: Config = {
    ...loadConfig({ ...env, DATABASE_URL: 'sqlite::memory:' }),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
  };
  let owner = '';
  let project = '';
  let report: SyncReport | null = null;
  const running = await startServer(config, undefined, {
    root: async (store) => {
      // mocks as code have no plan limits
      const user = await store.users.create(
        'files@mockyard.invalid',
        await hashPassword(randomBytes(18).toString('hex')),
        'unlimited',
      );
      const p = await store.projects.create(user.id, { name: first.name ?? path.basename(file), fallbackUrl: null });
      owner = user.id;
      project = p.id;
      report = await syncProject(store, owner, project, first, FILE_RULES_PER_ENDPOINT);
      return { ownerId: owner, projectId: project };
    },
  });
  const shown = report as SyncReport | null;
  let last = shown?.state ?? null;
  for (const w of shown?.warnings.slice(0, 50) ?? []) note(`mockyard: warning ${w.pointer}: ${w.message}`);
  if ((shown?.warnings.length ?? 0) > 50) note(`mockyard: … and ${(shown?.warnings.length ?? 0) - 50} more warnings`);

  let chain: Promise<SyncReport | null> = Promise.resolve(null);
  let timer: NodeJS.Timeout | null = null;
  const reload = () => {
    chain = chain.then(async () => {
      let next: Converted;
      try {
        next = await loadMockFiles(file);
      } catch (e) {
        note(`mockyard: reload failed, still serving the previous mocks: ${(e as Error).message}`);
        return null;
      }
      try {
        const r = await syncProject(running.store, owner, project, next, FILE_RULES_PER_ENDPOINT, last);
        last = r.state;
        note(`mockyard: reloaded ${opts.file}: ${summary(r)}`);
        return r;
      } catch (e) {
        note(`mockyard: reload failed: ${(e as Error).message}`);
        return null;
      }
    });
  };
  let watcher: fs.FSWatcher | null = null;
  if (opts.watch) {
    const isDir = fs.statSync(file).isDirectory();
    // a file is watched through its folder: editors replace files rather than write them in place
    const dir = isDir ? file : path.dirname(file);
    watcher = fs.watch(dir, { recursive: isDir }, (_event, name) => {
      if (!isDir && name !== null && name !== path.basename(file)) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        reload();
      }, 100);
    });
    watcher.on('error', (e) => note(`mockyard: watching stopped: ${e.message}`));
  }
  return {
    running,
    settled: async () => {
      // a change seen but not yet debounced is part of the wait
      while (timer !== null) await new Promise((r) => setTimeout(r, 20));
      return chain;
    },
    async close() {
      watcher?.close();
      if (timer) clearTimeout(timer);
      await chain;
      await running.close();
    },
  };
}
