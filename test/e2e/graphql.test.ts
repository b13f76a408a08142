/**
 * The dashboard's GraphQL panel, end to end (docs/graphql.md): the schema editor with its validation
 * and the query playground with the answer and who gave it. Needs /usr/bin/chromium.
 */
import fs from 'node:fs';
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

withDashboard();

// biome-ignore lint/suspicious/noExplicitAny: answers of the API, read as fixtures
async function api(method: string, p: string, body?: unknown, token?: string): Promise<any> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

describe('dashboard: GraphQL', () => {
  it('edits the schema with its validation and runs queries in the playground', async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(MISSING_CHROMIUM);
    if (setupError) throw setupError;
    if (!browser) throw new Error('Chromium did not start');
    const { token } = await api('POST', '/api/auth/register', {
      email: `g-${Date.now()}@example.com`,
      password: 'correct horse battery',
    });
    const project = await api('POST', '/api/projects', { name: 'Graph' }, token);
    const ep = await api(
      'POST',
      `/api/projects/${project.id}/endpoints`,
      { method: 'POST', path: '/graphql', graphql: { schema: 'type Query { hello: String! }' } },
      token,
    );

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    await page.goto(base);
    await page.evaluate(`window.localStorage.setItem('mockyard.token', ${JSON.stringify(token)})`);
    await page.goto(`${base}/projects/${project.id}/endpoints/${ep.id}`);

    const schema = page.getByLabel('Schema (SDL)');
    await schema.fill('type Query { hello: String! users: [User!]! ');
    await page.getByRole('button', { name: 'Save schema' }).click();
    await visible(page.getByText(/not valid GraphQL SDL/));
    await schema.fill('type User { id: ID! name: String! }\ntype Query { hello: String! users: [User!]! }');
    await page.getByRole('button', { name: 'Save schema' }).click();
    await visible(page.getByText('Saved.'));

    await page.getByLabel('Query', { exact: true }).fill('{ users { id name } }');
    await page.getByRole('button', { name: 'Run query' }).click();
    await visible(page.getByText('200 · generated from the schema (no rule answered)'));
    const answer = JSON.parse(await page.locator('.graphql-answer pre').innerText());
    expect(answer.data.users).toHaveLength(3);
    await page.getByLabel('Query', { exact: true }).fill('{ nope }');
    await page.getByRole('button', { name: 'Run query' }).click();
    await poll(async () => page.locator('.graphql-answer pre').innerText()).toContain('Cannot query field');
    await shot(page, 'graphql.png');

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
