/**
 * The dashboard's GraphQL panel, end to end (docs/graphql.md): the schema editor with its validation
 * and the query playground with the answer and who gave it. Needs /usr/bin/chromium.
 */
import { describe, expect, it } from 'vitest';
import {
  apiCall as api,
  base,
  poll,
  shot,
  signedInPage,
  smallTargets,
  violations,
  visible,
  withDashboard,
} from './harness.js';

withDashboard();

describe('dashboard: GraphQL', () => {
  it('edits the schema with its validation and runs queries in the playground', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Graph' }, token);
    const ep = await api(
      'POST',
      `/api/projects/${project.id}/endpoints`,
      { method: 'POST', path: '/graphql', graphql: { schema: 'type Query { hello: String! }' } },
      token,
    );

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
