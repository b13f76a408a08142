/**
 * The `mockyard` command line, run as a child process (`node bin/mockyard.mjs …`) against a real
 * server: serve, import, export, user set-plan, help texts and exit codes.
 * `serve` and `user set-plan` run the built server (dist/); `npm test` builds it first.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAR, WIREMOCK } from '../fixtures/peers.js';
import { DIALECTS } from '../helpers/databases.js';
import { freePort, ROOT, request, sleep, startTestServer, type TestServer } from '../helpers/server.js';

/** A Petstore pet as generated on import: realistic strings by property name (docs/stateful-mocks.md), not "string". */
const PET = {
  id: 0,
  name: expect.stringMatching(/^(?!string$)\S.*$/),
  tag: expect.stringMatching(/^(?!string$)\S+$/),
};

const BIN = path.join(ROOT, 'bin', 'mockyard.mjs');
const PETSTORE = path.join(ROOT, 'test', 'fixtures', 'petstore.yaml');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with a clean environment (no token, URL or database from the caller's shell). */
function cli(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Run> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !['MOCKYARD_TOKEN', 'MOCKYARD_URL', 'DATABASE_URL', 'PORT', 'HOST'].includes(k)) base[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...base, ...env }, cwd: os.tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('mockyard CLI: help and usage', () => {
  it('prints help at the top level and for each command, exit 0', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    for (const c of ['serve', 'import', 'export', 'user set-plan']) expect(top.stdout).toContain(c);
    for (const [args, usage] of [
      [['serve', '--help'], 'Usage: mockyard serve'],
      [['import', '--help'], 'Usage: mockyard import'],
      [['export', '-h'], 'Usage: mockyard export'],
      [['user', '--help'], 'Usage: mockyard user set-plan'],
      [['user', 'set-plan', '--help'], 'Usage: mockyard user set-plan'],
      [['help', 'import'], 'Usage: mockyard import'],
    ] as const) {
      const r = await cli([...args]);
      expect([args.join(' '), r.code, r.stdout.split('\n')[0]]).toEqual([
        args.join(' '),
        0,
        expect.stringContaining(usage),
      ]);
    }
    const version = await cli(['--version']);
    expect(version.stdout.trim()).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
  });

  it('runs as `npx mockyard` from the repository', async () => {
    const r = await new Promise<Run>((resolve, reject) => {
      const child = spawn('npx', ['--no-install', 'mockyard', '--version'], { cwd: ROOT, env: process.env });
      let stdout = '';
      child.stdout.on('data', (c) => {
        stdout += c;
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    expect(fs.statSync(BIN).mode & 0o111).not.toBe(0);
  });

  it('exits 2 with a clear message on wrong usage', async () => {
    const cases: [string[], RegExp][] = [
      [[], /a command is required/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['import', PETSTORE], /--project <name> is required/],
      [['import', '--project', 'x'], /one <file>/],
      [['import', PETSTORE, '--project', 'x'], /token is required/],
      [['import', PETSTORE, '--project', 'x', '--token', 't', '--on-conflict', 'merge'], /--on-conflict must be/],
      [['import', PETSTORE, '--project', 'x', '--token', 't', '--url', 'ftp://x'], /--url must be an http/],
      [['export'], /one <project-name-or-id>/],
      [['export', 'p', '--bogus'], /Unknown option '--bogus'/],
      [['user'], /user needs a subcommand/],
      [['user', 'delete', 'a@b.c'], /unknown user subcommand "delete"/],
      [['user', 'set-plan', 'a@b.c'], /usage: mockyard user set-plan/],
      [['user', 'set-plan', 'a@b.c', 'gold'], /plan must be one of free, pro, business/],
      [['serve', '--port', 'abc'], /--port must be an integer/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });
});

describe('mockyard CLI against a server', () => {
  let s: TestServer;
  let tmp: string;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-cli-'));
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('import creates the project when missing, then reports conflicts; export prints the document', async () => {
    const u = await s.client.user();
    const r = await cli(['import', PETSTORE, '--project', 'Pets', '--url', s.client.base, '--token', u.token]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Created project "Pets"/);
    expect(r.stdout).toContain('openapi: 3 created, 0 replaced, 0 skipped, 0 warnings');
    expect(r.stdout).toContain('+ GET /pets/:petId → 200');
    const projects = (await s.client.api('GET', '/api/projects', undefined, u.token)).json;
    expect(projects.map((p: { name: string }) => p.name)).toEqual(['Pets']);
    const pid = projects[0].id;
    expect(r.stdout).toContain(`${s.client.base}/m/${pid}`);
    expect((await s.client.mock(pid, 'GET', '/pets/1')).json).toEqual(PET);

    // token and URL from the environment; the same document again collides
    const env = { MOCKYARD_TOKEN: u.token, MOCKYARD_URL: s.client.base };
    const again = await cli(['import', PETSTORE, '--project', 'Pets'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409 conflict/);
    expect(again.stderr).toMatch(/\/paths\/~1pets\/get/);
    const skip = await cli(['import', PETSTORE, '--project', pid, '--on-conflict', 'skip', '--json'], env);
    expect(skip.code).toBe(0);
    const answer = JSON.parse(skip.stdout);
    expect(answer.project.id).toBe(pid);
    expect([answer.created.length, answer.skipped.length]).toEqual([0, 3]);

    // a JSON document, by extension
    const file = path.join(tmp, 'status.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 's', version: '1' },
        paths: {
          '/status': {
            get: { responses: { '200': { description: 'ok', content: { 'text/plain': { example: 'green' } } } } },
          },
        },
      }),
    );
    const json = await cli(['import', file, '--project', 'Pets'], env);
    expect(json.code).toBe(0);
    expect(json.stdout).toMatch(/^Project "Pets"/);
    expect((await s.client.mock(pid, 'GET', '/status')).text).toBe('green');

    // export by name and by id; the output imports as a new project
    const out = await cli(['export', 'Pets'], env);
    expect(out.code).toBe(0);
    const doc = JSON.parse(out.stdout);
    expect(doc).toMatchObject({ mockyard: 1, project: { name: 'Pets' } });
    expect(doc.endpoints.map((e: { path: string }) => e.path)).toEqual(['/pets', '/pets', '/pets/:petId', '/status']);
    expect(doc).not.toHaveProperty('storage');
    const withStorage = await cli(['export', pid, '--storage'], env);
    expect(withStorage.code, withStorage.stderr).toBe(0);
    expect(JSON.parse(withStorage.stdout).storage).toEqual({});
    const copy = await s.client.api('POST', '/api/projects/import?name=Copy', out.stdout, u.token);
    expect(copy.status).toBe(201);
    expect((await s.client.mock(copy.json.id, 'GET', '/status')).text).toBe('green');

    // any other format, detected: the report names it and lists the warnings
    const har = path.join(tmp, 'capture.har');
    fs.writeFileSync(har, JSON.stringify(HAR));
    const captured = await cli(['import', har, '--project', 'Captured'], env);
    expect(captured.code).toBe(0);
    expect(captured.stdout).toContain('har: 3 created, 0 replaced, 0 skipped');
    const wm = path.join(tmp, 'stubs.json');
    fs.writeFileSync(wm, JSON.stringify(WIREMOCK));
    const stubs = await cli(['import', wm, '--project', 'Stubs', '--format', 'wiremock'], env);
    expect(stubs.code).toBe(0);
    expect(stubs.stdout).toMatch(/! \/mappings\/5\/request\/bodyPatterns\/0: .*inactive/);
    expect((await cli(['import', wm, '--project', 'Stubs', '--format', 'nope'], env)).code).toBe(2);
  });

  it('takes a project id or name that starts with a dash as the project, not an option', async () => {
    // ids are base64url: one project in 64 has an id that starts with "-"
    const u = await s.client.user();
    const env = { MOCKYARD_TOKEN: u.token, MOCKYARD_URL: s.client.base };
    const made = await s.client.api('POST', '/api/projects', { name: '-dashed' }, u.token);
    expect(made.status).toBe(201);
    const byName = await cli(['export', '-dashed', '--storage'], env);
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout)).toMatchObject({ project: { name: '-dashed' }, storage: {} });
    const file = path.join(tmp, 'dashed.json');
    fs.writeFileSync(file, JSON.stringify({ mockyard: 1, project: { name: 'x' }, endpoints: [] }));
    const into = await cli(['import', file, '--project', '-dashed', '--json'], env);
    expect(into.code, into.stderr).toBe(0);
    expect(JSON.parse(into.stdout).project.id).toBe(made.json.id);
    // an unknown option is still refused
    expect((await cli(['export', '-dashed', '--bogus'], env)).code).toBe(2);
  });

  it('fails with exit 1 and the reason on service errors', async () => {
    const u = await s.client.user();
    const badToken = await cli(['export', 'x', '--url', s.client.base, '--token', 'not-a-token']);
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toMatch(/401 unauthorized/);
    // tokens are base64url: one may start with '-'
    const dashToken = await cli(['export', 'x', '--url', s.client.base, '--token', '-not-a-token']);
    expect([dashToken.code, dashToken.stderr]).toEqual([1, expect.stringMatching(/401 unauthorized/)]);
    const missing = await cli(['export', 'nope', '--url', s.client.base, '--token', u.token]);
    expect([missing.code, missing.stderr.trim()]).toEqual([1, 'mockyard: no project named "nope" (or with that id)']);
    const down = await cli(['export', 'x', '--url', `http://127.0.0.1:${await freePort()}`, '--token', u.token]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach Mockyard at http:\/\/127\.0\.0\.1:\d+/);
    const noFile = await cli([
      'import',
      path.join(tmp, 'none.yaml'),
      '--project',
      'p',
      '--url',
      s.client.base,
      '--token',
      u.token,
    ]);
    expect([noFile.code, noFile.stderr.trim()]).toEqual([
      1,
      `mockyard: cannot read ${path.join(tmp, 'none.yaml')}: no such file`,
    ]);
    const invalid = path.join(tmp, 'invalid.yaml');
    fs.writeFileSync(invalid, 'openapi: 3.0.0\ninfo:\n  title: x\npaths: {}\n');
    const bad = await cli(['import', invalid, '--project', 'p', '--url', s.client.base, '--token', u.token]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/400 validation_failed/);
    expect(bad.stderr).toMatch(/version/);
  });
});

for (const dialect of DIALECTS) {
  describe(`mockyard user set-plan (${dialect})`, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer(dialect);
    });
    afterAll(async () => {
      await s?.close();
    });

    it('sets the plan directly in the database', async () => {
      const u = await s.client.user();
      const r = await cli(['user', 'set-plan', u.email.toUpperCase(), 'business'], { DATABASE_URL: s.db.url });
      expect(r.stderr).toBe('');
      expect([r.code, r.stdout.trim()]).toEqual([0, `${u.email}: plan business (was free)`]);
      expect((await s.client.api('GET', '/api/auth/me', undefined, u.token)).json.plan).toBe('business');
      const flag = await cli(['user', 'set-plan', u.email, 'pro', '--database', s.db.url]);
      expect(flag.code).toBe(0);
      expect((await s.client.api('GET', '/api/auth/me', undefined, u.token)).json.plan).toBe('pro');
      const nobody = await cli(['user', 'set-plan', 'nobody@example.test', 'pro'], { DATABASE_URL: s.db.url });
      expect([nobody.code, nobody.stderr.trim()]).toEqual([1, 'mockyard: no user with email nobody@example.test']);
    });
  });
}

describe('mockyard serve', () => {
  it('serves on the given port and database, and stops on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-serve-'));
    const port = await freePort();
    const db = path.join(dir, 'serve.db');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--database', `sqlite:${db}`], {
      env: { ...process.env, PORT: '1', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: 'sqlite::memory:' },
      cwd: dir,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      let up = false;
      for (let i = 0; i < 300 && !up && child.exitCode === null; i++) {
        try {
          up = (await request(`http://127.0.0.1:${port}/healthz`, { timeoutMs: 1000 })).status === 200;
        } catch {
          await sleep(100);
        }
      }
      expect(up).toBe(true);
      const reg = await request(`http://127.0.0.1:${port}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'serve@example.test', password: 'password-123' }),
      });
      expect(reg.status).toBe(201);
      expect(fs.existsSync(db)).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 on a bad database URL', async () => {
    const r = await cli(['serve', '--database', 'mysql://nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/DATABASE_URL must be/);
  });
});
