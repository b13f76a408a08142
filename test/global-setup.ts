/**
 * Once per test run (vitest's globalSetup): a directory for the logs of the servers tests start as
 * child processes (helpers/server.ts, `spawnServer`), removed when the run ends, so a run leaves
 * nothing in the system's temporary directory. `MOCKYARD_KEEP_TEST_LOGS=1` keeps it (its path is
 * printed) for reading after a failure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    childLogs: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-test-logs-'));
  project.provide('childLogs', dir);
  return () => {
    if (process.env.MOCKYARD_KEEP_TEST_LOGS === '1') console.log(`child servers' logs kept in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  };
}
