#!/usr/bin/env node
// The `mockyard` command line: src/cli/ (TypeScript), built to dist/cli/. Builds dist/ first when missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist', 'cli', 'index.js');
if (!fs.existsSync(cli) || !fs.existsSync(path.join(root, 'dist', 'main.js'))) {
  process.stderr.write('mockyard: dist/ is missing, building first…\n');
  try {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: ['ignore', 2, 2] });
  } catch {
    process.stderr.write('mockyard: the build failed (see above)\n');
    process.exit(1);
  }
}
const { run } = await import(pathToFileURL(cli).href);
await run(process.argv.slice(2));
