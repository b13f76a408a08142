/**
 * The dashboard's Contract tab, end to end (docs/contract.md): attach a document, set the modes,
 * read coverage and lint, override one endpoint, and find a violating request in the inspector
 * with the "Violations only" filter. Needs /usr/bin/chromium, as dashboard.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PETSTORE } from '../contract/fixture.js';
import {
  apiCall as api,
  base,
  callMock,
  poll,
  shot,
  signedInPage,
  smallTargets,
  violations,
  visible,
  withDashboard,
} from './harness.js';

withDashboard();

describe('dashboard: contract', () => {
  it('attaches a contract, sets the modes, lints, and finds violations in the inspector', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Pets' }, token);
    const pets = await api(
      'POST',
      `/api/projects/${project.id}/endpoints`,
      { method: 'GET', path: '/pets', responseBody: '[{"name":1}]' },
      token,
    );

    await page.goto(`${base}/projects/${project.id}`);
    await page.getByRole('link', { name: 'Contract', exact: true }).click();
    await visible(page.getByRole('heading', { name: 'Attach a contract' }));
    await visible(page.getByText('No contract yet: nothing is validated.'));

    await page.getByLabel('Or paste the document (JSON or YAML)').fill(JSON.stringify(PETSTORE, null, 2));
    await page.getByRole('button', { name: 'Attach contract' }).click();
    await visible(page.getByText('openapi-3.0, 4 operations.'));
    await visible(page.getByText('1 of 4 operations are mocked.'));
    const unmocked = page.getByRole('list', { name: 'Operations no endpoint mocks' });
    await poll(() => unmocked.getByRole('listitem').count()).toBe(3);
    const problems = page.getByRole('list', { name: 'Answers that do not follow the contract' });
    await visible(problems.getByText('must be string, got integer'));

    await page.getByLabel('Requests', { exact: true }).selectOption('warn');
    await page.getByLabel('Answers', { exact: true }).selectOption('warn');
    await page.getByRole('button', { name: 'Save validation' }).click();
    await visible(page.getByText('Saved.'));
    await shot(page, 'contract.png');
    expect((await api('GET', `/api/projects/${project.id}`, undefined, token)).validation).toEqual({
      requests: 'warn',
      responses: 'warn',
      status: 400,
    });

    // one endpoint enforces
    await page.goto(`${base}/projects/${project.id}/endpoints/${pets.id}`);
    await page.getByLabel('Contract validation of this endpoint').selectOption('enforce');
    await poll(async () => (await callMock(`${base}/m/${project.id}/pets?limit=0`)).status).toBe(400);
    expect((await callMock(`${base}/m/${project.id}/pets?limit=0`, { 'x-mockyard-validate': 'warn' })).status).toBe(
      200,
    );
    await callMock(`${base}/m/${project.id}/nope`);

    // the inspector: violations beside the rule trace, and the filter
    await page.goto(`${base}/projects/${project.id}/requests`);
    await page.getByLabel('Violations only').check();
    await poll(async () => page.url()).toContain('violations=yes');
    await page
      .getByRole('button', { name: /GET \/pets\?limit=0/ })
      .first()
      .click();
    await visible(page.getByRole('heading', { name: 'Contract violations' }));
    await visible(page.getByRole('list', { name: 'Request violations' }).getByText(/limit must be >= 1/));
    await shot(page, 'contract-inspector.png');

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
