/**
 * The dashboard's template tools, end to end (docs/templates.md): config variables in the project
 * header, the body editor's syntax errors at their line and column, completion from the server's
 * helper table, the JSON check that skips tags, and the live preview against a sample request and
 * a request picked from the log. Needs /usr/bin/chromium, as dashboard.test.ts.
 */
import { describe, expect, it } from 'vitest';
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

describe('dashboard: templates', () => {
  it('edits config variables, shows template errors, completes helpers and previews a body', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Templates' }, token);
    const _endpoint = await api(
      'POST',
      `/api/projects/${project.id}/endpoints`,
      { method: 'GET', path: '/hello/:name' },
      token,
    );
    await callMock(`${base}/m/${project.id}/hello/ada?lang=en`);

    await page.goto(`${base}/projects/${project.id}`);

    // --- config variables (the project header) -------------------------------------------------
    await page.locator('summary', { hasText: 'Config variables' }).click();
    const config = page.getByRole('form', { name: 'Config variables' });
    await config.getByRole('button', { name: '+ Add config variable' }).click();
    await config.getByLabel('Config variables 1 name').fill('greeting');
    await config.getByLabel('Config variables 1 value').fill('Hello');
    await config.getByRole('button', { name: 'Save config' }).click();
    await visible(config.getByText('Saved.'));
    expect((await api('GET', `/api/projects/${project.id}`, undefined, token)).config).toEqual({ greeting: 'Hello' });

    // --- the body editor -----------------------------------------------------------------------
    await page
      .getByRole('link', { name: /\/hello\/:name/ })
      .first()
      .click();
    // the default response is open on the endpoint page
    await visible(page.getByRole('heading', { name: 'Default response' }));
    const body = page.getByRole('textbox', { name: 'Response body' });
    await visible(page.locator('.cm-content[aria-labelledby]'));
    await body.fill('{\n  "items": [{{#each (array 1 2)}}{{this}}\n]}');
    await visible(page.getByText(/Template error at line 2, column 13: .*never closed/));
    // underlined in the editor from there to the end of the line
    await visible(page.locator('.cm-template-error', { hasText: '{{#each (array 1 2)}}' }));
    await body.fill('{"items":[{{#each (array 1 2)}}{{this}}{{#unless @last}},{{/unless}}{{/each}}]}');
    await visible(page.getByText('A template with blocks: the preview checks the JSON it renders.'));
    expect(await page.getByText(/Template error/).count()).toBe(0);

    // completion reads the server's helper table and closes the tag
    await body.fill('');
    await body.pressSequentially('{"msg":"{{upperc');
    const option = page.getByRole('option', { name: /uppercase/ });
    await visible(option);
    await option.click();
    await body.pressSequentially('config.greeting');
    await poll(() => body.innerText()).toContain('{{uppercase config.greeting}}');
    await body.fill(
      '{"msg":"{{uppercase config.greeting}}, {{request.params.name}}","lang":"{{default request.query.lang \'none\'}}"}',
    );
    await visible(page.getByText('Valid JSON.', { exact: true }));

    // --- the live preview ----------------------------------------------------------------------
    await page.locator('summary', { hasText: 'Preview' }).click();
    await poll(() => page.locator('.preview-output pre').innerText()).toBe('{"msg":"HELLO, ","lang":"none"}');
    await visible(page.getByText('The rendered body is valid JSON.'));
    await page
      .getByLabel('Render against a request from the log')
      .selectOption({ label: 'GET /hello/ada?lang=en · 200' });
    await poll(() => page.locator('.preview-output pre').innerText()).toBe('{"msg":"HELLO, ","lang":"en"}');
    await shot(page, 'template-preview.png');

    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await poll(async () => (await callMock(`${base}/m/${project.id}/hello/bo?lang=fr`)).body).toBe(
      '{"msg":"HELLO, bo","lang":"fr"}',
    );

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
