/**
 * The installable package (docs/testing.md "Install"): `npm pack` gives a tarball that installs into
 * an empty project, where `npx mockyard serve --file` serves mocks and `import { Mockyard } from
 * 'mockyard/client'` works. The install resolves every dependency as a user's would (from npm's
 * cache, offline when it can) and compiles better-sqlite3 here: about a minute.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, ROOT, request } from '../helpers/server.js';

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-package-'));
let server: ChildProcess | undefined;
afterAll(() => {
  // npx runs the bin through a shell: the whole group goes, or the server outlives the test
  if (server?.pid !== undefined) {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('packs, installs into an empty project, serves a file with npx and imports the client', async () => {
    // dist/ and web/dist/ are built by the test command before the tests run
    const packed = await run('npm', ['pack', '--pack-destination', dir, '--ignore-scripts', '--json'], { cwd: ROOT });
    const [{ filename, files }] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const names = files.map((f) => f.path);
    expect(names).toContain('bin/mockyard.mjs');
    expect(names).toContain('dist/cli/index.js');
    expect(names).toContain('dist/client/index.d.ts');
    expect(names).toContain('web/dist/index.html');
    expect(names.some((n) => n.startsWith('src/') || n.startsWith('test/') || n.endsWith('.test.js'))).toBe(false);

    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'module' }));
    const installed = await run(
      'npm',
      ['install', path.join(dir, filename), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'],
      { cwd: app, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
    );
    // an engine warning is a bug: every dependency must accept Node 20 (package.json engines)
    expect(installed.stderr).not.toContain('EBADENGINE');

    fs.writeFileSync(
      path.join(app, 'mocks.json'),
      JSON.stringify({
        request: { method: 'GET', url: '/hello' },
        response: { status: 200, body: 'hi from the package' },
      }),
    );
    const port = await freePort();
    server = spawn(
      'npx',
      ['mockyard', 'serve', '--file', 'mocks.json', '--port', String(port), '--host', '127.0.0.1'],
      {
        cwd: app,
        env: { ...process.env, MOCKYARD_ADMIN_TOKEN: 'package-test-token', LOG_LEVEL: 'silent' },
        stdio: 'ignore',
        detached: true, // its own process group, killed whole in afterAll
      },
    );
    const base = `http://127.0.0.1:${port}`;
    let up = false;
    for (let i = 0; i < 300 && !up; i++) {
      up = await request(`${base}/healthz`, { timeoutMs: 1000 }).then(
        (r) => r.status === 200,
        () => false,
      );
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    expect(up).toBe(true);
    expect((await request(`${base}/hello`)).text).toBe('hi from the package');

    // the client, imported by its package name from the consumer's project
    fs.writeFileSync(
      path.join(app, 'client.mjs'),
      `import { Mockyard } from 'mockyard/client';
const my = new Mockyard({ baseUrl: process.argv[2], token: 'package-test-token', rootMocks: true });
const answer = await my.mock('', '/hello');
const projects = await my.projects.list();
console.log(JSON.stringify({ status: answer.status, body: await answer.text(), projects: projects.length }));
`,
    );
    const client = await run('node', ['client.mjs', base], { cwd: app });
    expect(JSON.parse(client.stdout)).toEqual({ status: 200, body: 'hi from the package', projects: 1 });
  }, 300_000);
});
