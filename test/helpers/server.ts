/**
 * Integration-test harness: starts the real server (in this process, on a free port, on a real
 * database) and talks HTTP to it. `spawnServer` starts it as a child process instead, for tests
 * that kill or restart it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { inject } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { type Running, startServer } from '../../src/server.js';
import { type DialectName, freshDatabase, type TestDatabase } from './databases.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are inspected freely
  json: any;
  ms: number;
}

export async function request(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
  const started = performance.now();
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: init.headers,
    body: init.body,
    signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json, ms: performance.now() - started };
}

export class TestClient {
  constructor(
    readonly base: string,
    readonly adminToken = ADMIN_TOKEN,
  ) {}

  api(
    method: string,
    p: string,
    body?: unknown,
    token?: string | null,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer> {
    const h: Record<string, string> = { ...headers };
    if (token) h.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
    }
    return request(`${this.base}${p}`, { method, headers: h, body: payload });
  }

  mock(
    projectId: string,
    method: string,
    p: string,
    opts: { headers?: Record<string, string>; body?: string; query?: string; timeoutMs?: number } = {},
  ): Promise<HttpAnswer> {
    const q = opts.query ? `?${opts.query}` : '';
    return request(`${this.base}/m/${projectId}${p}${q}`, {
      method,
      headers: opts.headers,
      body: opts.body,
      timeoutMs: opts.timeoutMs,
    });
  }

  async user(): Promise<{ token: string; id: string; email: string; password: string }> {
    const email = `u-${randomBytes(5).toString('hex')}@example.test`;
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const r = await this.api('POST', '/api/auth/register', { email, password });
    if (r.status !== 201) throw new Error(`register: ${r.status} ${r.text}`);
    return { token: r.json.token, id: r.json.user.id, email, password };
  }

  async project(token: string, name = 'p'): Promise<{ id: string }> {
    const r = await this.api('POST', '/api/projects', { name }, token);
    if (r.status !== 201) throw new Error(`project: ${r.status} ${r.text}`);
    return r.json;
  }

  // biome-ignore lint/suspicious/noExplicitAny: fixtures
  async endpoint(token: string, pid: string, body: Record<string, unknown>): Promise<any> {
    const r = await this.api('POST', `/api/projects/${pid}/endpoints`, body, token);
    if (r.status !== 201) throw new Error(`endpoint: ${r.status} ${r.text}`);
    return r.json;
  }

  // biome-ignore lint/suspicious/noExplicitAny: fixtures
  async rule(token: string, pid: string, eid: string, body: Record<string, unknown>): Promise<any> {
    const r = await this.api('POST', `/api/projects/${pid}/endpoints/${eid}/rules`, { name: 'r', ...body }, token);
    if (r.status !== 201) throw new Error(`rule: ${r.status} ${r.text}`);
    return r.json;
  }

  /** user + project + endpoint */
  async fixture(endpoint: Record<string, unknown> = { method: 'GET', path: '/x' }) {
    const u = await this.user();
    const p = await this.project(u.token);
    const e = await this.endpoint(u.token, p.id, endpoint);
    return { ...u, pid: p.id, eid: e.id, endpoint: e };
  }
}

export interface TestServer {
  running: Running;
  client: TestClient;
  db: TestDatabase;
  close(): Promise<void>;
}

export function testConfig(databaseUrl: string, overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ DATABASE_URL: databaseUrl }),
    port: 0,
    host: '127.0.0.1',
    adminToken: ADMIN_TOKEN,
    logLevel: 'silent',
    authRatePerMinute: 100_000,
    webDir: path.join(ROOT, 'web', 'dist'),
    ...overrides,
  };
}

/** The real server in this process on a fresh database of the dialect. */
export async function startTestServer(
  dialect: DialectName = 'sqlite',
  overrides: Partial<Config> = {},
): Promise<TestServer> {
  const db = await freshDatabase(dialect);
  const running = await startServer(testConfig(db.url, overrides), pino({ level: 'silent' }));
  return {
    running,
    db,
    client: new TestClient(running.url),
    async close() {
      await running.close();
      await db.drop();
    },
  };
}

export interface ChildServer {
  base: string;
  port: number;
  proc: ChildProcess;
  client: TestClient;
  logFile: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Where child servers' logs go: the test run's directory for them, or the system's temporary directory outside a run. */
function childLogs(): string {
  try {
    return inject('childLogs') ?? os.tmpdir();
  } catch {
    return os.tmpdir();
  }
}

/** The built server (dist/main.js) as a child process: for restart, SIGKILL and multi-process tests. */
export async function spawnServer(databaseUrl: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const main = path.join(ROOT, 'dist', 'main.js');
  if (!fs.existsSync(main)) throw new Error('dist/main.js is missing: run `npm run build` first (npm test does)');
  const port = await freePort();
  // in the run's directory for them (test/global-setup.ts), which goes when the run ends
  const logFile = path.join(fs.mkdtempSync(path.join(childLogs(), 'child-')), 'server.log');
  const out = fs.openSync(logFile, 'a');
  const proc = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      MOCKYARD_ADMIN_TOKEN: ADMIN_TOKEN,
      MOCKYARD_AUTH_RATE_LIMIT: '100000',
      ...env,
    },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited early: ${fs.readFileSync(logFile, 'utf8')}`);
    try {
      if ((await request(`${base}/healthz`, { timeoutMs: 1000 })).status === 200) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`server did not start: ${fs.readFileSync(logFile, 'utf8')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    port,
    proc,
    logFile,
    client: new TestClient(base),
    stop(signal: NodeJS.Signals = 'SIGTERM') {
      return new Promise((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
        const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        proc.once('exit', (code) => {
          clearTimeout(t);
          resolve(code);
        });
        proc.kill(signal);
      });
    },
  };
}

export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
