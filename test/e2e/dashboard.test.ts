/**
 * End-to-end test of the dashboard, first part (imports, exports, keys and agents: projects.test.ts;
 * under load: flood.test.ts): a real server (`node scripts/start.mjs`) and headless Chromium
 * driven through playwright-core. Elements are found by role and accessible name, as a user (or a
 * screen reader) would find them. Screenshots of the main screens go to test-results/screenshots/, or
 * to docs/screenshots/ (committed, shown in the README) with UPDATE_SCREENSHOTS=1.
 *
 * Needs /usr/bin/chromium (Debian: `apt-get install -y chromium`); without it the test fails.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  base,
  browser,
  CHROMIUM,
  callMock,
  MISSING_CHROMIUM,
  poll,
  setupError,
  shot,
  smallTargets,
  violations,
  visible,
  withDashboard,
} from './harness.js';

withDashboard();

describe('dashboard', () => {
  it('signs up, builds a mock with a sequenced rule, follows live requests and sessions, and signs out', async () => {
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
    // a new account lands on the sample project, with a first mock to call as copied (0 clicks)
    await visible(page.getByRole('heading', { name: 'Sample shop', level: 1 }));
    await visible(page.getByRole('heading', { name: 'Your first mock is ready' }));
    await visible(page.getByText('Free plan · 3 rules/endpoint'));
    const tryIt = await page.getByTestId('try-it').innerText();
    const hello = /curl '([^']+)'/.exec(tryIt)?.[1] ?? '';
    expect(JSON.parse((await callMock(hello)).body)).toMatchObject({ hello: 'you' });
    await visible(page.getByRole('list', { name: 'Endpoints' }).getByRole('link', { name: '/api/products/:id' }));
    await shot(page, 'first-run.png');
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    await visible(page.getByRole('heading', { name: 'Projects', level: 1 }));

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
    // the body editor is CodeMirror (its chunk loads lazily; a textarea stands in until then)
    const responseBody = page.locator('.cm-content[aria-labelledby]');
    await visible(responseBody);
    expect(await page.getByRole('textbox', { name: 'Response body' }).count()).toBe(1);
    await page.getByRole('textbox', { name: 'Response body' }).fill('{"orders":[]}');
    await visible(responseBody.locator('span', { hasText: '"orders"' })); // a highlighted JSON key
    await page.getByRole('button', { name: 'Format response body as JSON' }).click();
    await poll(() => page.getByRole('textbox', { name: 'Response body' }).innerText()).toBe('{\n  "orders": []\n}');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await visible(page.getByRole('heading', { name: /\/api\/orders/, level: 1 }));
    // the dashboard shows the slug form of the mock URL (/m/<id> serves the same project)
    const token = await page.evaluate("window.localStorage.getItem('mockyard.token')");
    const project = await fetch(`${base}/api/projects/${projectId}`, { headers: { authorization: `Bearer ${token}` } });
    const { slug } = (await project.json()) as { slug: string };
    const mockUrl = `${base}/m/${slug}/api/orders`;
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
    // `{{…}}` completion: typing in a tag lists the request's fields; Enter takes one, which is coloured
    const body1 = step1.getByLabel('Body', { exact: true });
    await body1.fill('{"m":"');
    await body1.press('End');
    await body1.pressSequentially('{{request.me');
    const option = page.getByRole('option', { name: /request\.method/ });
    await visible(option);
    await option.click(); // (Enter takes it too, once the list has been open 75 ms: CodeMirror's guard against fast typing)
    await poll(() => body1.innerText()).toContain('{{request.method}}');
    await visible(step1.locator('.cm-template-tag', { hasText: '{{request.method}}' }));
    // Esc closes an open completion list, not the rule editor
    await body1.press('End');
    await body1.pressSequentially(' {{request.qu');
    await visible(page.getByRole('option', { name: /request\.query\./ }));
    await body1.press('Escape');
    await poll(() => page.locator('.cm-tooltip-autocomplete').count()).toBe(0);
    await visible(form);
    await step1.getByLabel('Body', { exact: true }).fill('{"vip":"first"}');
    await form.getByRole('button', { name: '+ Add step' }).click();
    const step2 = form.getByRole('group', { name: 'Step 2' });
    await step2.getByLabel('Status').fill('200');
    await step2.getByLabel('Body', { exact: true }).fill('{"vip":"second"}');
    // drag a step by its grip above the other (↑/↓ stay the keyboard path), and back
    const stepBody = (step: typeof step1) => step.getByLabel('Body', { exact: true }).innerText();
    // (a tall window: both steps on screen, so the drag does not scroll the page mid-way)
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 1280, height: 2400 });
    await step2.locator('.drag-grip').dragTo(step1, { targetPosition: { x: 40, y: 12 } });
    await poll(() => stepBody(step1)).toBe('{"vip":"second"}');
    await poll(() => stepBody(step2)).toBe('{"vip":"first"}');
    await step2.locator('.drag-grip').dragTo(step1, { targetPosition: { x: 40, y: 12 } });
    await poll(() => stepBody(step1)).toBe('{"vip":"first"}');
    if (viewport) await page.setViewportSize(viewport);
    await shot(page, 'rule-editor.png');
    await form.getByRole('button', { name: 'Create rule' }).click();

    const rule = page.getByRole('article', { name: 'VIP customers', exact: true });
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
    // the answer sent: which step of the sequence, its headers and body
    await visible(detail.getByRole('heading', { name: 'Answer sent' }));
    await visible(detail.getByText('1 of 2', { exact: true }));
    await poll(() => detail.getByTestId('answer-body').textContent()).toContain('"first"');
    await visible(detail.getByRole('rowheader', { name: 'content-length' }));

    // The same list after a reload of the deep link (initial list from GET /requests).
    await page.reload();
    await poll(() => page.getByRole('list', { name: 'Requests', exact: true }).getByRole('button').count()).toBe(2);

    // A request without the header is answered by the default response and shown as such.
    const plain = await callMock(mockUrl);
    expect(plain).toEqual({ status: 200, body: '{\n  "orders": []\n}' });
    await poll(() => page.getByRole('list', { name: 'Requests', exact: true }).getByRole('button').count()).toBe(3);
    await page.getByRole('list', { name: 'Requests', exact: true }).getByRole('button').first().click();
    await visible(detail.getByText('VIP customers — did not match'));
    // expected vs received, for the condition that failed
    await visible(detail.getByText(/Condition 1: header x-tier equals “vip” — received nothing/));

    // --- mock sessions: each X-Mockyard-Session value has its own sequence ----------------------
    const inSession = (session: string) => callMock(mockUrl, { 'x-tier': 'vip', 'x-mockyard-session': session });
    expect(await inSession('run-a')).toEqual({ status: 201, body: '{"vip":"first"}' });
    // run-b starts at step 1 too: run-a's hit moved only run-a's sequence.
    expect(await inSession('run-b')).toEqual({ status: 201, body: '{"vip":"first"}' });
    expect(await inSession('run-a')).toEqual({ status: 200, body: '{"vip":"second"}' });
    const list = page.getByRole('list', { name: 'Requests', exact: true });
    const allRows = list.getByRole('button');
    await poll(() => allRows.count()).toBe(6);
    await poll(() => allRows.filter({ hasText: 'session run-a' }).count()).toBe(2);
    await poll(() => allRows.filter({ hasText: 'session run-b' }).count()).toBe(1);
    const sessionFilter = page.getByRole('combobox', { name: 'Session', exact: true });
    await sessionFilter.selectOption({ label: 'run-a' });
    await poll(() => allRows.count()).toBe(2);
    for (const i of [0, 1]) await poll(() => allRows.nth(i).textContent()).toContain('run-a');
    await visible(page.getByText('2 of 6 shown'));
    await sessionFilter.selectOption({ label: 'No session' });
    await poll(() => allRows.count()).toBe(3);
    await poll(() => allRows.filter({ hasText: /session run-/ }).count()).toBe(0);
    await sessionFilter.selectOption({ label: 'All requests' });
    await poll(() => allRows.count()).toBe(6);
    await allRows.filter({ hasText: 'session run-b' }).click();
    await visible(detail.getByRole('definition').filter({ hasText: 'session run-b' }));
    await shot(page, 'live-requests.png');

    // --- filters live in the URL (a shared link shows the same view); replay sends a request again
    await page.getByRole('combobox', { name: 'Status' }).selectOption('2xx');
    await page.getByRole('searchbox', { name: 'Path' }).fill('ORDERS');
    await page.getByRole('combobox', { name: 'Session', exact: true }).selectOption({ label: 'run-a' });
    // (the endpoint page's link opened the log filtered to that endpoint)
    await poll(async () => new URL(page.url()).search).toMatch(/^\?status=2xx&path=ORDERS&session=run-a&endpoint=/);
    await poll(() => allRows.count()).toBe(2);
    await page.reload();
    await poll(() => page.getByRole('list', { name: 'Requests', exact: true }).getByRole('button').count()).toBe(2);
    await poll(() => page.getByRole('combobox', { name: 'Status' }).inputValue()).toBe('2xx');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await poll(async () => new URL(page.url()).search).toBe('');
    await poll(() => allRows.count()).toBe(6);
    // the request the default answered (replaying it moves no sequence)
    await allRows.filter({ hasText: 'default' }).click();
    await detail.getByRole('button', { name: 'Replay' }).click();
    await visible(detail.getByText(/Replayed: 200/));
    await poll(() => allRows.count()).toBe(7);
    await poll(() => allRows.filter({ hasText: 'default' }).count()).toBe(2);
    await shot(page, 'live-requests-narrow.png', true);

    // --- back to the endpoint: sequence state and reset ----------------------------------------
    expect(await callMock(mockUrl, { 'x-tier': 'vip' })).toMatchObject({ status: 201 });
    await page.goBack();
    await visible(rule);
    await visible(rule.getByText('Next: step 2 of 2'));

    // The session picker shows (and resets) one session's position; the shared one stays.
    const picker = page.getByRole('combobox', { name: 'Show state of' });
    await picker.selectOption('run-a');
    await visible(rule.getByText('session run-a'));
    await visible(rule.getByText('Next: step 1 of 2'));
    await picker.selectOption('run-b');
    await visible(rule.getByText('session run-b'));
    await visible(rule.getByText('Next: step 2 of 2'));
    await visible(page.getByRole('heading', { name: 'Storage session run-b' }));
    await shot(page, 'endpoint-session.png');
    await rule.getByRole('button', { name: 'Reset sequence' }).click();
    await visible(rule.getByText('Next: step 1 of 2'));
    expect(await inSession('run-b')).toEqual({ status: 201, body: '{"vip":"first"}' });
    await picker.selectOption({ label: 'Shared (no session)' });
    await poll(() => rule.getByText('session run-').count()).toBe(0);
    await visible(rule.getByText('Next: step 2 of 2'));

    // From the shared view, Reset restarts the shared sequence and every session's.
    await rule.getByRole('button', { name: 'Reset sequence' }).click();
    await visible(rule.getByText('Next: step 1 of 2'));
    expect(await callMock(mockUrl, { 'x-tier': 'vip' })).toEqual({ status: 201, body: '{"vip":"first"}' });
    expect(await inSession('run-a')).toEqual({ status: 201, body: '{"vip":"first"}' });

    // --- toggle the rule off: the default response answers -------------------------------------
    const active = rule.getByRole('checkbox', { name: 'Active: VIP customers' });
    await poll(() => active.isChecked()).toBe(true);
    await active.click();
    await poll(() => active.isChecked()).toBe(false);
    await visible(rule.getByText('Off', { exact: true }));
    expect(await callMock(mockUrl, { 'x-tier': 'vip' })).toEqual({ status: 200, body: '{\n  "orders": []\n}' });

    // --- duplicate it, and drag the copy above the original: the new order is saved -----------
    await rule.getByRole('button', { name: 'Duplicate' }).click();
    const copy = page.getByRole('article', { name: 'VIP customers (copy)' });
    await visible(copy);
    const ruleOrder = () =>
      page
        .getByRole('list', { name: 'Rules in evaluation order' })
        .getByRole('heading', { level: 3 })
        .allTextContents();
    await poll(ruleOrder).toEqual(['VIP customers', 'VIP customers (copy)']);
    await copy.getByTestId('rule-grip').dragTo(rule, { targetPosition: { x: 60, y: 8 } });
    await poll(ruleOrder).toEqual(['VIP customers (copy)', 'VIP customers']);
    await page.reload();
    await poll(ruleOrder).toEqual(['VIP customers (copy)', 'VIP customers']);
    await copy.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete rule “VIP customers (copy)”?' })
      .getByRole('button', { name: 'Delete rule' })
      .click();
    await poll(() => copy.count()).toBe(0);

    // --- delete the rule (with confirmation) ---------------------------------------------------
    await rule.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete rule “VIP customers”?' });
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Delete rule' }).click();
    await poll(() => rule.count()).toBe(0);
    await visible(page.getByText('0 of 3 rules'));

    // --- sign out ------------------------------------------------------------------------------
    await page.getByRole('button', { name: 'Sign out' }).click();
    await visible(page.getByRole('heading', { name: 'Welcome back' }));
    expect(await page.evaluate("window.localStorage.getItem('mockyard.token')")).toBeNull();

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
