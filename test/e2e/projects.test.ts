/**
 * End-to-end test of the dashboard, second part (the first: dashboard.test.ts): a project with one
 * endpoint imports an OpenAPI document (one route colliding) and WireMock mappings, exports itself,
 * comes back as a new project, records, duplicates an endpoint with its rules, sends a test request;
 * then the Data tab, API keys, the agents page and the projects deleted. Needs /usr/bin/chromium.
 */
import fs from 'node:fs';
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

/** WireMock mappings: a plain stub, and one whose cookie matcher has no Mockyard condition. */
const WIREMOCK_JSON = JSON.stringify({
  mappings: [
    { request: { method: 'GET', url: '/api/ping' }, response: { status: 200, body: 'pong' } },
    { request: { method: 'GET', url: '/api/ping', cookies: { a: { equalTo: 'b' } } }, response: { status: 418 } },
  ],
});

/** A tiny OpenAPI document: GET /api/orders collides with the endpoint the test creates first. */
const OPENAPI_YAML = `openapi: 3.0.3
info:
  title: Shop
  version: "1"
paths:
  /api/orders:
    get:
      responses:
        "200":
          description: the orders
  /api/customers/{id}:
    get:
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer } }
      responses:
        "200":
          description: one customer
          content:
            application/json:
              example: { id: 7, name: Ada }
  /api/customers:
    post:
      responses:
        "201":
          description: created
`;

describe('dashboard: projects', () => {
  it('imports OpenAPI and WireMock, exports and imports a project, records, duplicates, makes keys, cleans up', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Shop API' }, token);
    const projectId = project.id as string;
    await api(
      'POST',
      `/api/projects/${projectId}/endpoints`,
      { method: 'GET', path: '/api/orders', responseBody: '{\n  "orders": []\n}' },
      token,
    );
    const mockUrl = `${base}/m/${projectId}/api/orders`;
    await page.goto(`${base}/projects/${projectId}`);
    await visible(page.getByRole('heading', { name: 'Shop API', level: 1 }));

    // --- the project's endpoint list ----------------------------------------------------------
    const endpointList = page.getByRole('list', { name: 'Endpoints' });
    await visible(endpointList.getByRole('link', { name: '/api/orders' }));

    // --- import an OpenAPI document (YAML); one route collides with /api/orders -----------------
    await page.getByRole('button', { name: 'Import mocks' }).click();
    const importer = page.getByRole('dialog', { name: 'Import mocks' });
    await visible(importer);
    await importer.getByRole('textbox', { name: 'Document' }).fill(OPENAPI_YAML);
    await visible(importer.getByText('Sent as YAML.', { exact: false }));
    await importer.getByRole('button', { name: 'Import', exact: true }).click();
    await visible(importer.getByText('1 record collides with the project: nothing was imported.'));
    await visible(importer.getByText(/GET \/api\/orders collides with endpoint/));
    await shot(page, 'import-openapi.png');
    await importer.getByRole('button', { name: 'Skip existing' }).click();
    await visible(importer.getByText('OpenAPI: created 2 endpoints, replaced 0, skipped 1, 0 warnings.'));
    const created = importer.getByRole('list', { name: 'Created endpoints' }).getByRole('listitem');
    await poll(() => created.allTextContents()).toEqual(['GET /api/customers/:id200', 'POST /api/customers201']);
    await visible(importer.getByRole('list', { name: 'Skipped operations' }).getByText('/api/orders', { exact: true }));
    await shot(page, 'import-openapi-report.png');
    // --- and WireMock mappings: the stub with a cookie matcher is imported inactive, with a warning
    await importer.getByRole('button', { name: 'Import another' }).click();
    await importer.getByRole('combobox', { name: 'Format' }).selectOption('wiremock');
    await importer.getByRole('textbox', { name: 'Document' }).fill(WIREMOCK_JSON);
    await importer.getByRole('button', { name: 'Import', exact: true }).click();
    await visible(importer.getByText('WireMock: created 1 endpoint, replaced 0, skipped 0, 1 warning.'));
    await visible(importer.getByRole('list', { name: 'Warnings' }).getByText('/mappings/1/request/cookies'));
    await shot(page, 'import-wiremock-report.png');
    await importer.getByRole('button', { name: 'Done' }).click();
    await poll(() => importer.count()).toBe(0);
    await visible(endpointList.getByRole('link', { name: '/api/customers/:id' }));
    await visible(endpointList.getByRole('link', { name: '/api/customers', exact: true }));
    expect(await callMock(`${base}/m/${projectId}/api/customers/7`)).toEqual({
      status: 200,
      body: '{\n  "id": 7,\n  "name": "Ada"\n}',
    });
    await shot(page, 'project-endpoints.png');

    // --- export the project as a file ---------------------------------------------------------
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const exporter = page.getByRole('dialog', { name: 'Export “Shop API”' });
    await exporter.getByRole('checkbox', { name: /Include stored variables/ }).check();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      exporter.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Shop-API.mockyard.json');
    const exportFile = await download.path();
    const exported = JSON.parse(fs.readFileSync(exportFile, 'utf8'));
    expect(exported).toMatchObject({ mockyard: 1, project: { name: 'Shop API' } });
    expect(exported.endpoints.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
      'GET /api/orders',
      'GET /api/customers/:id',
      'POST /api/customers',
      'GET /api/ping',
    ]);
    await poll(() => exporter.count()).toBe(0);

    // --- the projects list, then delete the projects -------------------------------------------
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    await visible(page.getByRole('link', { name: 'Shop API', exact: true }));
    await page.getByLabel('Project name').fill('Mobile app backend');
    await page.getByRole('button', { name: 'Create project' }).click();
    await visible(page.getByRole('heading', { name: 'Mobile app backend', level: 1 }));
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    await poll(() => page.getByRole('list', { name: 'Your projects' }).getByRole('listitem').count()).toBe(2);
    await shot(page, 'projects.png');

    // --- import the exported file as a new project --------------------------------------------
    await page.getByRole('button', { name: 'Import project' }).click();
    const projectImporter = page.getByRole('dialog', { name: 'Import project' });
    await projectImporter.getByLabel('Export file').setInputFiles(exportFile);
    await visible(projectImporter.getByText('Project “Shop API”.'));
    await projectImporter.getByLabel('New project name (optional)').fill('Shop API copy');
    await projectImporter.getByRole('button', { name: 'Import project' }).click();
    await visible(page.getByRole('heading', { name: 'Shop API copy', level: 1 }));
    const copyId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
    expect(copyId).not.toBe(projectId);
    await poll(() => page.getByRole('list', { name: 'Endpoints' }).getByRole('link').allTextContents()).toEqual([
      '/api/orders',
      '/api/customers/:id',
      '/api/customers',
      '/api/ping',
    ]);
    expect(await callMock(`${base}/m/${copyId}/api/ping`)).toEqual({ status: 200, body: 'pong' });
    expect(await callMock(`${base}/m/${copyId}/api/orders`)).toEqual({ status: 200, body: '{\n  "orders": []\n}' });

    // --- record mode needs a fallback URL; then the project header says it is recording ---------
    await page.getByText('Fallback and recording').click();
    const fallback = page.getByRole('form', { name: 'Fallback and recording' });
    await fallback.getByRole('checkbox', { name: /Record: send every request/ }).check();
    await fallback.getByRole('button', { name: 'Save' }).click();
    await visible(fallback.getByText('recording needs a fallbackUrl', { exact: false }));
    await fallback.getByRole('textbox', { name: /Fallback URL/ }).fill('http://127.0.0.1:9/');
    await fallback.getByRole('button', { name: 'Save' }).click();
    await visible(fallback.getByText('Saved: recording.'));
    await visible(page.locator('.fallback-panel summary .badge-warn'));
    await shot(page, 'fallback-recording.png');
    await fallback.getByRole('checkbox', { name: /Record: send every request/ }).uncheck();
    await fallback.getByRole('button', { name: 'Save' }).click();
    await visible(fallback.getByText('Saved.'));
    await poll(() => page.locator('.fallback-panel summary .badge-warn').count()).toBe(0);

    // --- duplicate an endpoint (its rules come along); a stale server error goes with an edit ----
    // (GET /api/ping came from the WireMock mappings with an inactive rule for the cookie matcher)
    await page.getByRole('button', { name: 'Duplicate endpoint GET /api/ping' }).click();
    const pathField = page.getByLabel('Path', { exact: true });
    await poll(() => pathField.inputValue()).toBe('/api/ping/copy');
    await pathField.fill('/api/orders');
    await page.getByRole('button', { name: 'Create the copy' }).click();
    await visible(page.getByText('GET /api/orders already exists in this project'));
    await poll(() => page.evaluate("document.activeElement?.getAttribute('aria-invalid')")).toBe('true');
    expect(await pathField.getAttribute('aria-describedby')).toMatch(/path-error/);
    await pathField.fill('/api/ping/v2');
    await poll(() => page.getByText(/already exists in this project/).count()).toBe(0);
    await page.getByRole('button', { name: 'Create the copy' }).click();
    await visible(page.getByRole('heading', { name: /\/api\/ping\/v2/, level: 1 }));
    // two rules came along: the inactive one (the cookie matcher) and the one for the exact URL
    await poll(() => page.getByRole('article', { name: 'GET /api/ping' }).count()).toBe(2);
    const copiedRule = page.getByRole('article', { name: 'GET /api/ping' }).first();
    await visible(copiedRule);
    // Esc closes the rule editor, and the focus goes back to the rule's Edit button
    await copiedRule.getByRole('button', { name: 'Edit' }).click();
    await visible(page.getByRole('form', { name: /Edit rule/ }));
    await page.keyboard.press('Escape');
    await poll(() => page.getByRole('form', { name: /Edit rule/ }).count()).toBe(0);
    await poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Edit');
    // "Send a test request" shows the answer right on the endpoint page
    await page.getByText('Send a test request').click();
    await page.getByRole('form', { name: 'Test request' }).getByRole('button', { name: 'Send' }).click();
    await visible(page.getByRole('region', { name: 'Test answer' }).getByText('pong'));
    // … and its log entry: which rule answered it
    const testAnswer = page.getByRole('region', { name: 'Test answer' });
    await visible(testAnswer.getByRole('heading', { name: 'Its log entry' }));
    await visible(testAnswer.getByText(/Answered by\s*GET \/api\/ping/));
    // the endpoint list can be searched
    await page.goBack();
    await page.getByRole('searchbox', { name: 'Search' }).fill('customers');
    await poll(() => page.getByRole('list', { name: 'Endpoints' }).getByRole('link').count()).toBe(2);
    await visible(page.getByText('2 of 5 endpoints'));

    // --- the Data tab and the API keys page (scanned with axe, as every view photographed) -------
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await visible(page.getByRole('heading', { name: 'Collections', exact: true }));
    await shot(page, 'data.png');
    await page.getByRole('link', { name: 'API keys' }).click();
    await visible(page.getByRole('heading', { name: 'API keys', level: 1 }));
    const keyForm = page.getByRole('form', { name: 'New API key' });
    await keyForm.getByLabel('Name').fill('ci');
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    await visible(page.getByTestId('new-key'));
    await shot(page, 'api-keys.png');
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByRole('dialog', { name: 'Revoke ci?' }).getByRole('button', { name: 'Revoke' }).click();
    await poll(() => page.getByRole('list', { name: 'API keys' }).getByRole('listitem').count()).toBe(0);
    // --- use with agents: the /mcp URL and a snippet with a fresh read key that works there ---------
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await visible(page.getByRole('heading', { name: 'Use with agents', level: 1 }));
    await page
      .getByRole('form', { name: 'Create an agent key' })
      .getByRole('button', { name: 'Create key and snippet' })
      .click();
    await poll(() => page.getByTestId('mcp-http-snippet').textContent()).toMatch(/Bearer myk_[A-Za-z0-9_-]{43}/);
    const snippet = JSON.parse((await page.getByTestId('mcp-http-snippet').textContent()) ?? '{}');
    const listed = await fetch(snippet.mcpServers.mockyard.url, {
      method: 'POST',
      headers: {
        ...snippet.mcpServers.mockyard.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const names = ((await listed.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(names).toContain('explain_request');
    expect(names).not.toContain('create_project'); // a read key
    await shot(page, 'agents.png');
    await page.goBack();
    await page.goBack();
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    await poll(() => page.getByRole('list', { name: 'Your projects' }).getByRole('listitem').count()).toBe(3);

    for (const name of ['Shop API', 'Mobile app backend', 'Shop API copy']) {
      await page.getByRole('button', { name: `Delete ${name}`, exact: true }).click();
      const confirm = page.getByRole('dialog', { name: `Delete project “${name}”?` });
      await confirm.getByRole('button', { name: 'Delete project' }).click();
      await poll(() => page.getByRole('link', { name, exact: true }).count()).toBe(0);
    }
    await visible(page.getByRole('heading', { name: 'No projects yet' }));
    expect((await callMock(mockUrl)).status).toBe(404);

    // --- sign out ------------------------------------------------------------------------------
    await page.getByRole('button', { name: 'Sign out' }).click();
    await visible(page.getByRole('heading', { name: 'Welcome back' }));

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
