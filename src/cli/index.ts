/**
 * The `mockyard` command line (docs/interop.md, docs/testing.md): serve, import, export, and an admin
 * console command to set a user's plan — one file per command. Exit codes: 0 done, 1 failed
 * (unreachable server, HTTP error, missing user, …), 2 wrong usage. `bin/mockyard.mjs` runs `run`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, print, UsageError } from './common.js';
import { exportProject } from './export.js';
import { HELP } from './help.js';
import { importFile } from './import.js';
import { lint } from './lint.js';
import { mcp } from './mcp.js';
import { serve } from './serve.js';
import { user } from './user.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError(`a command is required\n\n${HELP.top}`);
    case '-h':
    case '--help':
      return print(HELP.top);
    case 'help':
      return print(HELP[rest[0]] ?? HELP.top);
    case '-v':
    case '--version':
      return print(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    case 'serve':
      return serve(rest);
    case 'import':
      return importFile(rest);
    case 'export':
      return exportProject(rest);
    case 'mcp':
      return mcp(rest);
    case 'lint':
      return lint(rest);
    case 'user':
      return user(rest);
    default:
      throw new UsageError(`unknown command "${command}"\n\n${HELP.top}`);
  }
}

/** Runs the command line; sets the exit code instead of throwing. */
export async function run(argv: string[]): Promise<void> {
  try {
    await main(argv);
  } catch (e) {
    const known = e instanceof UsageError || e instanceof CliError;
    process.stderr.write(`mockyard: ${known ? (e as Error).message : ((e as Error)?.stack ?? String(e))}\n`);
    process.exitCode = e instanceof UsageError ? 2 : 1;
  }
}
