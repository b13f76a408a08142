/**
 * The first minutes and the daily loop by keyboard (issue "Dashboard III"): "New endpoint" puts the
 * focus in the form and a created endpoint's page on its heading; "+ Add condition" on the new row; a
 * save that fails on the first wrong field, described by its visible message; an inactive rule and the
 * rule editor pass axe in dark mode too; the top bar is one line at 390 px.
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

const active = (page: import('playwright-core').Page) =>
  page.evaluate(
    "(() => { const e = document.activeElement; if (!e) return ''; const label = e.id ? document.querySelector('label[for=\"' + e.id + '\"]') : null; return [e.tagName.toLowerCase(), label?.textContent ?? '', e.getAttribute('aria-invalid') ?? ''].join('|') })()",
  );

describe('dashboard: keyboard, focus, contrast and a narrow screen', () => {
  it('moves the focus where the work is, passes axe in dark mode, fits 390 px', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Keys' }, token);

    await page.goto(`${base}/projects/${project.id}`);
    await page.getByRole('button', { name: 'New endpoint' }).click();
    await poll(() => active(page)).toMatch(/^select\|Method\|/);
    await page.keyboard.press('Tab');
    await page.keyboard.type('/api/users');
    await page.keyboard.press('Enter');
    await visible(page.getByRole('heading', { name: /\/api\/users/, level: 1 }));
    await poll(() => page.evaluate('document.activeElement?.tagName')).toBe('H1');

    await page.getByRole('button', { name: 'Add rule' }).click();
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Rule name').fill('by header');
    await form.getByRole('button', { name: '+ Add condition' }).click();
    await poll(() => active(page)).toMatch(/^select\|Target\|/);
    // a failed save: the focus goes to the wrong field, which says why through aria-describedby
    await form.getByRole('button', { name: 'Create rule' }).click();
    await poll(() => active(page)).toMatch(/\|true$/);
    const described = await page.evaluate(
      "(document.activeElement.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ')",
    );
    expect(described).toMatch(/\S/);
    await page.keyboard.press('Escape');

    // an inactive rule, in both color schemes
    const [ep] = await api('GET', `/api/projects/${project.id}/endpoints`, undefined, token);
    await api(
      'POST',
      `/api/projects/${project.id}/endpoints/${ep.id}/rules`,
      { name: 'off for now', active: false, response: { steps: [{ statusCode: 500 }] } },
      token,
    );
    await page.reload();
    await visible(page.getByRole('article', { name: 'off for now' }));
    await shot(page, 'endpoint-inactive-rule.png');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'endpoint-dark.png');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await visible(page.getByRole('form', { name: 'New rule' }));
    await shot(page, 'rule-editor-dark.png');
    await page.emulateMedia({ colorScheme: 'light' });

    // 390 px: the top bar stays one line
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/projects`);
    await visible(page.getByRole('heading', { name: 'Projects', level: 1 }));
    const height = await page.evaluate("document.querySelector('.topbar').getBoundingClientRect().height");
    const widths: string = await page.evaluate(
      "[...document.querySelectorAll('.topbar-inner > *, .account > *')].map((e) => e.className + ':' + Math.round(e.getBoundingClientRect().width) + 'x' + Math.round(e.getBoundingClientRect().height)).join(' ')",
    );
    expect(height, widths).toBeLessThanOrEqual(60);
    await shot(page, 'projects-390.png');

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);

  it('says how to lift the plan at the rule limit, and makes API keys for some projects with an end date', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Limits' }, token);
    const other = await api('POST', '/api/projects', { name: 'Other' }, token);
    const ep = await api('POST', `/api/projects/${project.id}/endpoints`, { method: 'GET', path: '/x' }, token);
    for (const n of [1, 2, 3])
      await api(
        'POST',
        `/api/projects/${project.id}/endpoints/${ep.id}/rules`,
        { name: `r${n}`, response: { steps: [{ statusCode: 200 }] } },
        token,
      );
    await page.goto(`${base}/projects/${project.id}/endpoints/${ep.id}`);
    await visible(page.getByText(/as many as the free plan allows/));
    await visible(page.getByText('MOCKYARD_DEFAULT_PLAN=unlimited'));
    expect(await page.getByRole('button', { name: 'Add rule' }).isDisabled()).toBe(true);

    await page.goto(`${base}/keys`);
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByRole('button', { name: 'Create key' }).click();
    await visible(form.getByText('Give the key a name, for example “ci”.'));
    await form.getByLabel('Name').fill('ci');
    await form.getByLabel('Scope').selectOption('write');
    await form.getByLabel('Limits').check();
    await form.getByLabel('Other').check();
    await form.getByLabel('Expires (optional)').fill('2099-12-31');
    await shot(page, 'api-keys-form.png');
    await form.getByRole('button', { name: 'Create key' }).click();
    await visible(page.getByTestId('new-key'));
    const [key] = await api('GET', '/api/auth/keys', undefined, token);
    expect(key).toMatchObject({ name: 'ci', scope: 'write' });
    expect([...key.projectIds].sort()).toEqual([project.id, other.id].sort());
    expect(key.expiresAt.slice(0, 4)).toBe('2099');

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);

  it('shows a miss’s nearest endpoints in the inspector, reached by keyboard, with what differs marked', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Near' }, token);
    await api('POST', `/api/projects/${project.id}/endpoints`, { method: 'GET', path: '/api/users/:id' }, token);
    const miss = await fetch(`${base}/m/${project.id}/api/user/42`);
    expect(miss.status).toBe(404);

    await page.goto(`${base}/projects/${project.id}/requests`);
    const row = page.getByRole('button', { name: /\/api\/user\/42/ });
    await visible(row);
    // Tab from the top of the page to the row, then Enter
    await page.evaluate('document.activeElement?.blur()');
    const focused = () => row.evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement);
    for (let i = 0; i < 60 && !(await focused()); i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe(true);
    await page.keyboard.press('Enter');
    const list = page.getByRole('list', { name: 'Nearest endpoints' });
    await visible(list);
    expect(await list.textContent()).toContain('segment 2 is "user" where the endpoint has "users"');
    // the differing segment is marked, the fitting ones are not
    expect(await list.locator('mark').allTextContents()).toEqual(['users']);
    await shot(page, 'inspector-nearest.png');
    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
