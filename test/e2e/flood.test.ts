/**
 * The dashboard under a request flood (test/e2e/harness.ts): the live request list stays responsive —
 * no main-thread task of 50 ms (thread time) while 200 requests/s arrive. Needs /usr/bin/chromium.
 */
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  base,
  browser,
  CHROMIUM,
  MISSING_CHROMIUM,
  poll,
  setupError,
  shot,
  smallTargets,
  violations,
  visible,
  withDashboard,
} from './harness.js';
import { longestMainThreadTask } from './main-thread.js';

withDashboard();

describe('dashboard under load', () => {
  it('stays responsive under a request flood: no main-thread task of 50 ms (thread time) while 200 requests/s arrive', async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(MISSING_CHROMIUM);
    if (setupError) throw setupError;
    if (!browser) throw new Error('Chromium did not start');
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers of the API
    const api = async (method: string, p: string, body?: unknown, token?: string): Promise<any> => {
      const r = await fetch(`${base}${p}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return r.json();
    };
    const { token } = await api('POST', '/api/auth/register', {
      email: `flood-${Date.now()}@example.test`,
      password: 'correct horse',
    });
    const project = await api('POST', '/api/projects', { name: 'Flood' }, token);
    const endpoint = await api(
      'POST',
      `/api/projects/${project.id}/endpoints`,
      { method: 'GET', path: '/items/:id' },
      token,
    );
    await api(
      'POST',
      `/api/projects/${project.id}/endpoints/${endpoint.id}/rules`,
      {
        name: 'odd',
        conditions: [{ target: 'query', key: 'odd', operator: 'exists' }],
        response: { steps: [{ statusCode: 404 }] },
      },
      token,
    );
    // (in dark mode: the system setting decides, and it is scanned with axe like the light views)
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'dark' });
    await context.addInitScript(`window.localStorage.setItem('mockyard.token', ${JSON.stringify(token)})`);
    const page = await context.newPage();
    await page.goto(`${base}/projects/${project.id}/requests`);
    await visible(page.getByRole('heading', { name: 'Waiting for requests' }));
    /** 200 requests/s for 3 s (bursts of 20 every 100 ms, to loopback); the page's longest task meanwhile. */
    let sent = 0;
    const flood = () =>
      longestMainThreadTask(browser as Browser, page, async () => {
        const started = Date.now();
        for (let tick = 0; tick < 30; tick++) {
          await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              fetch(`${base}/m/${project.id}/items/${sent + i}${i % 2 ? '?odd=1' : ''}`).then((r) => r.arrayBuffer()),
            ),
          );
          sent += 20;
          const due = started + (tick + 1) * 100;
          if (Date.now() < due) await new Promise((r) => setTimeout(r, due - Date.now()));
        }
        // the newest request is on screen: every entry of the flood has been merged
        await visible(page.getByText(new RegExp(`^/items/${sent - 1}\\?odd=1$`)));
      });
    // The bound is on what the page does: a task's thread time (main-thread.ts says why not its wall
    // time), at the Long Tasks API's 50 ms. The page's longest here reads 13–18 ms, also with three
    // busy loops beside it; with every one of the 500 rows rendered (no virtualization) it read 57 once
    // and under 50 once, so the list's size is checked below as well.
    // A task the page causes shows in every attempt; a VM's stolen time, if ever, in one.
    const longest = [await flood()];
    while (longest[longest.length - 1].threadMs >= 50 && longest.length < 3) longest.push(await flood());
    const told = longest.map((t) => `${t.threadMs} ms of thread time (${t.wallMs} ms wall, of ${t.tasks} tasks)`);
    expect(longest[0].tasks, 'the trace holds the main thread’s tasks').toBeGreaterThan(100);
    expect(longest[0].threadMs, 'the trace gives their thread times').toBeGreaterThan(0);
    expect(longest[longest.length - 1].threadMs, `the longest main-thread task: ${told.join('; ')}`).toBeLessThan(50);
    await poll(() => page.getByText('500 shown').count()).toBe(1);
    // only the rows near the view are in the page
    const requestRows = page.getByRole('list', { name: 'Requests', exact: true }).getByRole('listitem');
    expect(await requestRows.first().getAttribute('aria-setsize')).toBe('500');
    expect(await requestRows.count()).toBeLessThan(60);
    // and the page still answers at once: a filter applies to the 500 entries
    await page.getByRole('combobox', { name: 'Status' }).selectOption('4xx');
    await visible(page.getByText('250 of 500 shown'));
    await page.getByRole('list', { name: 'Requests', exact: true }).getByRole('button').first().click();
    await shot(page, 'live-requests-dark.png');
    await page.goto(`${base}/projects/${project.id}/endpoints/${endpoint.id}`);
    await visible(page.getByRole('article', { name: 'odd' }));
    await shot(page, 'endpoint-dark.png');

    // a project of 400 endpoints: only the rows near the view are in the page, and all are reachable
    for (let i = 0; i < 399; i += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, 399 - i) }, (_, j) =>
          api('POST', `/api/projects/${project.id}/endpoints`, { method: 'GET', path: `/bulk/${i + j}` }, token),
        ),
      );
    await page.goto(`${base}/projects/${project.id}`);
    const endpointRows = page.getByRole('list', { name: 'Endpoints' }).getByRole('listitem');
    await visible(page.getByText('400 of 400 endpoints'));
    await poll(() => endpointRows.count()).toBeGreaterThan(5);
    expect(await endpointRows.count()).toBeLessThan(60);
    expect(await endpointRows.first().getAttribute('aria-setsize')).toBe('400');
    await visible(page.getByRole('link', { name: '/items/:id' }));
    await page.keyboard.press('End');
    await poll(() => endpointRows.last().getAttribute('aria-posinset')).toBe('400');
    await poll(() => page.getByRole('link', { name: '/items/:id' }).count()).toBe(0);
    expect(await endpointRows.count()).toBeLessThan(60);
    // /bulk/39 and /bulk/390 … /bulk/398: a short list is a plain one again
    await page.getByRole('searchbox', { name: 'Search' }).fill('/bulk/39');
    await visible(page.getByText('10 of 400 endpoints'));
    await poll(() => endpointRows.count()).toBe(10);
    expect(await endpointRows.first().getAttribute('aria-setsize')).toBeNull();
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
