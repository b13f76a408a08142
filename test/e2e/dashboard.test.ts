/**
 * End-to-end test of the dashboard: a real server (`node scripts/start.mjs`) and headless Chromium
 * driven through playwright-core. Elements are found by role and accessible name, as a user (or a
 * screen reader) would find them. Screenshots of the main screens go to docs/screenshots/.
 *
 * Needs /usr/bin/chromium (Debian: `apt-get install -y chromium`); without it the test fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = path.join(root, 'docs', 'screenshots');

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
let base = '';
let browser: Browser | undefined;

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

const MISSING_CHROMIUM =
  `Chromium is required for the dashboard e2e test but ${CHROMIUM} does not exist. ` +
  'Install it (Debian/Ubuntu: `apt-get update && apt-get install -y chromium`) and run the tests again.';

let setupError: unknown;

beforeAll(async () => {
  try {
    await setUp();
  } catch (err) {
    // Reported by the test itself, so that it shows as failed (a failing hook marks it skipped).
    setupError = err;
  }
}, 180_000);

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

afterAll(async () => {
  await browser?.close().catch(() => {});
  await stopServer();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 30_000);

/** Calls the mock from Node, as an app under development would. */
async function callMock(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: await res.text() };
}

/** Waits for the element to be visible (playwright-core has no `expect`; these helpers stand in). */
const visible = (l: Locator) => l.waitFor({ state: 'visible' });
/** Polls a value until the assertion holds (10 s). */
const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 10_000, interval: 100 });

async function shot(page: Page, name: string, narrow = false): Promise<void> {
  const size = page.viewportSize();
  if (narrow) await page.setViewportSize({ width: 400, height: 860 });
  // Let transitions settle; leave passing toasts out of the picture.
  await page.waitForTimeout(300);
  await page.screenshot({
    path: path.join(shots, name),
    fullPage: true,
    style: '.toasts { display: none; } .topbar { position: static; }',
  });
  if (narrow && size) await page.setViewportSize(size);
}

describe('dashboard', () => {
  it('signs up, builds a mock with a sequenced rule, follows live requests and cleans up', async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(MISSING_CHROMIUM);
    if (setupError) throw setupError;
    if (!browser) throw new Error('Chromium did not start');
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content.Security.Policy|Refused to/i.test(msg.text())) pageErrors.push(msg.text());
    });

    // --- sign up -------------------------------------------------------------------------------
    await page.goto(base);
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await visible(page.getByRole('heading', { name: 'Create your account' }));
    await shot(page, 'sign-up.png');
    await page.getByLabel('Email').fill(`e2e-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await visible(page.getByRole('heading', { name: 'Projects', level: 1 }));
    await visible(page.getByText('Free plan · 3 rules/endpoint'));
    await visible(page.getByRole('heading', { name: 'No projects yet' }));

    // --- project -------------------------------------------------------------------------------
    await page.getByLabel('Project name').fill('Shop API');
    await page.getByRole('button', { name: 'Create project' }).click();
    await visible(page.getByRole('heading', { name: 'Shop API', level: 1 }));
    const projectId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
    expect(projectId).toBeTruthy();
    await visible(page.getByRole('heading', { name: 'No endpoints yet' }));

    // --- endpoint ------------------------------------------------------------------------------
    await page.getByRole('button', { name: 'New endpoint' }).click();
    await page.getByLabel('Method').selectOption('GET');
    await page.getByLabel('Path').fill('/api/orders');
    await page.getByLabel('Status', { exact: true }).fill('200');
    await page.getByRole('textbox', { name: 'Response body' }).fill('{"orders":[]}');
    await page.getByRole('button', { name: 'Format response body as JSON' }).click();
    await poll(() => page.getByRole('textbox', { name: 'Response body' }).inputValue()).toBe('{\n  "orders": []\n}');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await visible(page.getByRole('heading', { name: /\/api\/orders/, level: 1 }));
    const mockUrl = `${base}/m/${projectId}/api/orders`;
    await visible(page.getByText(mockUrl, { exact: true }));
    await visible(page.getByText(`curl -i '${mockUrl}'`, { exact: true }));
    await visible(page.getByText('0 of 3 rules'));

    // --- rule: header condition, two steps in Loop ---------------------------------------------
    await page.getByRole('button', { name: 'Add rule' }).click();
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Rule name').fill('VIP customers');
    await form.getByRole('button', { name: '+ Add condition' }).click();
    const cond = form.getByRole('group', { name: 'Condition 1' });
    await cond.getByLabel('Target').selectOption('header');
    await cond.getByLabel('Operator').selectOption('equals');
    // Inline validation: the header name is required.
    await form.getByRole('button', { name: 'Create rule' }).click();
    await visible(cond.getByText('Header name needed.'));
    await cond.getByLabel('Header name').fill('x-tier');
    await cond.getByLabel('Value').fill('vip');
    await form.getByLabel('Sequence mode').selectOption('loop');
    const step1 = form.getByRole('group', { name: 'Step 1' });
    await step1.getByLabel('Status').fill('201');
    await step1.getByLabel('Body', { exact: true }).fill('{"vip":"first"}');
    await form.getByRole('button', { name: '+ Add step' }).click();
    const step2 = form.getByRole('group', { name: 'Step 2' });
    await step2.getByLabel('Status').fill('200');
    await step2.getByLabel('Body', { exact: true }).fill('{"vip":"second"}');
    await shot(page, 'rule-editor.png');
    await form.getByRole('button', { name: 'Create rule' }).click();

    const rule = page.getByRole('article', { name: 'VIP customers' });
    await visible(rule);
    await visible(page.getByText('1 of 3 rules'));
    await visible(rule.getByText('header x-tier equals “vip”'));
    await visible(rule.getByText('Next: step 1 of 2'));
    await shot(page, 'endpoint-rules.png');
    await shot(page, 'endpoint-rules-narrow.png', true);

    // --- live requests: open the page, then call the mock twice --------------------------------
    await page.getByRole('link', { name: 'Live requests' }).click();
    await visible(page.getByRole('heading', { name: 'Requests', exact: true }));
    await visible(page.getByRole('status').filter({ hasText: 'Live' }));
    await visible(page.getByRole('heading', { name: 'Waiting for requests' }));

    const first = await callMock(mockUrl, { 'x-tier': 'vip' });
    const second = await callMock(mockUrl, { 'x-tier': 'vip' });
    expect(first).toEqual({ status: 201, body: '{"vip":"first"}' });
    expect(second).toEqual({ status: 200, body: '{"vip":"second"}' });

    // Both arrive over the event stream, newest first, with the matched rule.
    const rows = page.getByRole('list', { name: 'Requests', exact: true }).getByRole('button');
    await poll(() => rows.count()).toBe(2);
    await poll(() => rows.nth(0).textContent()).toContain('200');
    await poll(() => rows.nth(1).textContent()).toContain('201');
    for (const i of [0, 1]) {
      await poll(() => rows.nth(i).textContent()).toContain('GET');
      await poll(() => rows.nth(i).textContent()).toContain('/api/orders');
      await poll(() => rows.nth(i).textContent()).toContain('VIP customers');
    }
    await rows.nth(1).click();
    const detail = page.getByRole('complementary', { name: 'Request details' });
    await visible(detail.getByText('VIP customers — matched'));
    await visible(detail.getByRole('rowheader', { name: 'x-tier' }));
    await shot(page, 'live-requests.png');
    await shot(page, 'live-requests-narrow.png', true);

    // The same list after a reload of the deep link (initial list from GET /requests).
    await page.reload();
    await poll(() => page.getByRole('list', { name: 'Requests', exact: true }).getByRole('button').count()).toBe(2);

    // A request without the header is answered by the default response and shown as such.
    const plain = await callMock(mockUrl);
    expect(plain).toEqual({ status: 200, body: '{\n  "orders": []\n}' });
    await poll(() => page.getByRole('list', { name: 'Requests', exact: true }).getByRole('button').count()).toBe(3);
    await page.getByRole('list', { name: 'Requests', exact: true }).getByRole('button').first().click();
    await visible(detail.getByText('VIP customers — did not match'));
    await visible(detail.getByText(/Condition 1 failed/));

    // --- back to the endpoint: sequence state and reset ----------------------------------------
    expect(await callMock(mockUrl, { 'x-tier': 'vip' })).toMatchObject({ status: 201 });
    await page.goBack();
    await visible(rule);
    await visible(rule.getByText('Next: step 2 of 2'));
    await rule.getByRole('button', { name: 'Reset sequence' }).click();
    await visible(rule.getByText('Next: step 1 of 2'));
    expect(await callMock(mockUrl, { 'x-tier': 'vip' })).toEqual({ status: 201, body: '{"vip":"first"}' });

    // --- toggle the rule off: the default response answers -------------------------------------
    const active = rule.getByRole('checkbox', { name: 'Active: VIP customers' });
    await poll(() => active.isChecked()).toBe(true);
    await active.click();
    await poll(() => active.isChecked()).toBe(false);
    await visible(rule.getByText('Off', { exact: true }));
    expect(await callMock(mockUrl, { 'x-tier': 'vip' })).toEqual({ status: 200, body: '{\n  "orders": []\n}' });

    // --- delete the rule (with confirmation) ---------------------------------------------------
    await rule.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete rule “VIP customers”?' });
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Delete rule' }).click();
    await poll(() => rule.count()).toBe(0);
    await visible(page.getByText('0 of 3 rules'));

    // --- the project's endpoint list ----------------------------------------------------------
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Shop API' }).click();
    await visible(page.getByRole('list', { name: 'Endpoints' }).getByRole('link', { name: '/api/orders' }));
    await shot(page, 'project-endpoints.png');

    // --- the projects list, then delete the projects -------------------------------------------
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    await visible(page.getByRole('link', { name: 'Shop API', exact: true }));
    await page.getByLabel('Project name').fill('Mobile app backend');
    await page.getByRole('button', { name: 'Create project' }).click();
    await visible(page.getByRole('heading', { name: 'Mobile app backend', level: 1 }));
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    await poll(() => page.getByRole('list', { name: 'Your projects' }).getByRole('listitem').count()).toBe(2);
    await shot(page, 'projects.png');
    for (const name of ['Shop API', 'Mobile app backend']) {
      await page.getByRole('button', { name: `Delete ${name}` }).click();
      const confirm = page.getByRole('dialog', { name: `Delete project “${name}”?` });
      await confirm.getByRole('button', { name: 'Delete project' }).click();
      await poll(() => page.getByRole('link', { name, exact: true }).count()).toBe(0);
    }
    await visible(page.getByRole('heading', { name: 'No projects yet' }));
    expect((await callMock(mockUrl)).status).toBe(404);

    // --- sign out ------------------------------------------------------------------------------
    await page.getByRole('button', { name: 'Sign out' }).click();
    await visible(page.getByRole('heading', { name: 'Welcome back' }));
    expect(await page.evaluate("window.localStorage.getItem('mockyard.token')")).toBeNull();

    expect(pageErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
