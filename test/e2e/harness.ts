/**
 * The dashboard's end-to-end harness: a real server (`node scripts/start.mjs`, or MOCKYARD_E2E_URL)
 * and headless Debian Chromium through playwright-core, started once per test file; the WCAG scan and
 * the target-size audit of every photographed view; small waiting helpers (playwright-core has no
 * `expect`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(root, 'docs', 'screenshots')
    : path.join(root, 'test-results', 'screenshots');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

let server: ChildProcess | undefined;
let serverOutput = '';
let tmp = '';
export let base = '';
export let browser: Browser | undefined;

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (server?.exitCode !== null && server?.exitCode !== undefined) {
      throw new Error(`the server exited with code ${server.exitCode} before it was healthy:\n${serverOutput}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
      last = `status ${res.status}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`GET ${url} did not answer 200 within ${timeoutMs} ms (last: ${last}):\n${serverOutput}`);
}

async function stopServer(): Promise<void> {
  const child = server;
  if (!child?.pid || child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  // The child runs in its own process group, so a build it may have started goes too.
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }, 5000);
  await exited;
  clearTimeout(timer);
}

export const MISSING_CHROMIUM =
  `Chromium is required for the dashboard e2e test but ${CHROMIUM} does not exist. ` +
  'Install it (Debian/Ubuntu: `apt-get update && apt-get install -y chromium`) and run the tests again.';

export let setupError: unknown;

async function setUp(): Promise<void> {
  // Without Chromium the test itself fails (below) with a clear message; it is never skipped.
  if (!fs.existsSync(CHROMIUM)) return;
  fs.mkdirSync(shots, { recursive: true });
  const launch = chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
  // MOCKYARD_E2E_URL points the test at a server that is already running (for working on the dashboard).
  if (process.env.MOCKYARD_E2E_URL) {
    base = process.env.MOCKYARD_E2E_URL.replace(/\/+$/, '');
    await waitForHealth(`${base}/healthz`, 10_000);
    browser = await launch;
    return;
  }
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-e2e-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${path.join(tmp, 'db.sqlite')}`,
      LOG_LEVEL: 'warn',
    },
  });
  const keep = (chunk: Buffer) => {
    serverOutput = (serverOutput + chunk.toString()).slice(-20_000);
  };
  server.stdout?.on('data', keep);
  server.stderr?.on('data', keep);
  // start.mjs builds first when the build is stale, which can take a while.
  await waitForHealth(`${base}/healthz`, 170_000);
  browser = await launch;
}

/** Starts the server and Chromium before the file's tests, and stops them after. */
export function withDashboard(): void {
  beforeAll(async () => {
    try {
      await setUp();
    } catch (err) {
      // Reported by the test itself, so that it shows as failed (a failing hook marks it skipped).
      setupError = err;
    }
  }, 180_000);

  afterAll(async () => {
    await browser?.close().catch(() => {});
    await stopServer();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }, 30_000);
}

/** Calls the mock from Node, as an app under development would. */
export async function callMock(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: await res.text() };
}

/** Waits for the element to be visible (playwright-core has no `expect`; these helpers stand in). */
export const visible = (l: Locator) => l.waitFor({ state: 'visible' });
/** Polls a value until the assertion holds (10 s). */
export const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 10_000, interval: 100 });

/** axe-core, evaluated in the page (CDP evaluation is not subject to the dashboard's CSP). */
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Every view that is photographed is scanned too (WCAG 2.0–2.2 A and AA): none may have a violation. */
export const violations: string[] = [];

export async function scan(page: Page, name: string): Promise<void> {
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } })",
  )) as { violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] };
  for (const v of result.violations)
    violations.push(
      `${name}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.length} element(s), e.g. ${v.nodes
        .slice(0, process.env.AXE_ALL ? 100 : 3)
        .map((n) => n.target.join(' '))
        .join(' | ')}`,
    );
}

/**
 * The hand audit of target sizes (WCAG 2.5.8), stricter than axe's spacing exception: every visible
 * control is at least 24 × 24 CSS px, but links inside running text (the rule's inline exception); a
 * checkbox or radio inside its label is measured as the label, which is where a click lands.
 */
export const smallTargets: string[] = [];
export async function auditTargets(page: Page, name: string): Promise<void> {
  const small =
    (await page.evaluate(`[...document.querySelectorAll('button, a[href], input, select, summary, [role="option"], [draggable="true"]')]
    .filter((e) => e.checkVisibility() && !(e.tagName === 'A' && e.closest('p, li.crumb, .hint, dd, td')))
    .map((e) => [e, (e.matches('input[type=checkbox], input[type=radio]') && e.closest('label') || e).getBoundingClientRect()])
    .filter(([e, r]) => r.width < 24 || r.height < 24)
    .map(([e, r]) => e.tagName.toLowerCase() + '[' + (e.getAttribute('aria-label') || e.textContent.trim().slice(0, 24) || e.getAttribute('type') || '') + '] ' + Math.round(r.width) + '×' + Math.round(r.height))`)) as string[];
  for (const s of small) smallTargets.push(`${name}: ${s}`);
}

export async function shot(page: Page, name: string, narrow = false): Promise<void> {
  const size = page.viewportSize();
  if (narrow) await page.setViewportSize({ width: 400, height: 860 });
  // Let transitions settle; leave passing toasts out of the picture.
  await page.waitForTimeout(300);
  // scanned from the top, as photographed (a control half under the sticky top bar reads as small)
  await page.evaluate('window.scrollTo(0, 0)');
  await scan(page, name);
  await auditTargets(page, name);
  await page.screenshot({
    path: path.join(shots, name),
    fullPage: true,
    style: '.toasts { display: none; } .topbar { position: static; }',
  });
  if (narrow && size) await page.setViewportSize(size);
}

/** The management API from the test, as a client would call it. */
// biome-ignore lint/suspicious/noExplicitAny: answers of the API, read as fixtures
export async function apiCall(method: string, p: string, body?: unknown, token?: string): Promise<any> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status === 204 ? null : res.json();
}

/** A fresh account's token, and a page signed in with it (the page's errors collected). */
export async function signedInPage(viewport = { width: 1280, height: 900 }) {
  if (!fs.existsSync(CHROMIUM)) throw new Error(MISSING_CHROMIUM);
  if (setupError) throw setupError;
  if (!browser) throw new Error('Chromium did not start');
  const { token } = await apiCall('POST', '/api/auth/register', {
    email: `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    password: 'correct horse battery',
  });
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  await page.goto(base);
  await page.evaluate(`window.localStorage.setItem('mockyard.token', ${JSON.stringify(token)})`);
  return { token: token as string, context, page, pageErrors };
}
