/**
 * The import dialog's folder and zip input, end to end (docs/interop.md "Folders and zips"): a zip of
 * WireMock mappings with __files is picked, sent as application/zip, and its body file is served.
 * Needs /usr/bin/chromium, as dashboard.test.ts.
 */
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  apiCall as api,
  base,
  callMock,
  shot,
  signedInPage,
  smallTargets,
  violations,
  visible,
  withDashboard,
} from './harness.js';

withDashboard();

const enc = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));

describe('dashboard: import a folder or a zip', () => {
  it('picks a zip, shows the report, and the body file is served', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Zipped' }, token);
    const zip = zipSync({
      'wiremock/mappings/hello.json': enc({
        request: { method: 'GET', url: '/hello' },
        response: { status: 200, bodyFileName: 'hello.txt' },
      }),
      'wiremock/__files/hello.txt': enc('hello from __files'),
    });

    await page.goto(`${base}/projects/${project.id}`);
    await page.getByRole('button', { name: 'Import mocks' }).click();
    const importer = page.getByRole('dialog', { name: 'Import mocks' });
    await visible(importer.getByRole('group', { name: 'Or a folder or a .zip' }));
    await importer
      .getByLabel('A .zip')
      .setInputFiles({ name: 'wiremock.zip', mimeType: 'application/zip', buffer: Buffer.from(zip) });
    await visible(importer.getByText('wiremock.zip will be sent as a zip.'));
    await shot(page, 'import-zip.png');
    await importer.getByRole('button', { name: 'Import', exact: true }).click();
    await visible(importer.getByText('WireMock: created 1 endpoint, replaced 0, skipped 0, 0 warnings.'));
    expect(await callMock(`${base}/m/${project.id}/hello`)).toEqual({ status: 200, body: 'hello from __files' });

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
