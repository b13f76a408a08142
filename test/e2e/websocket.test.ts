/**
 * The dashboard's WebSocket console, end to end (docs/websocket.md): connect from the browser to a WS
 * mock, talk, push to a channel, and set a rule's trigger in the editor. Needs /usr/bin/chromium.
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

describe('dashboard: WebSocket', () => {
  it('connects to a WS mock, talks, pushes, and edits a rule’s trigger', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Chat' }, token);
    const ep = await api(
      'POST',
      `/api/projects/${project.id}/endpoints`,
      { method: 'WS', path: '/chat', channels: ['lobby'] },
      token,
    );
    await api(
      'POST',
      `/api/projects/${project.id}/endpoints/${ep.id}/rules`,
      { name: 'echo', response: { steps: [{ body: 'you said {{message.text}}' }] } },
      token,
    );

    await page.goto(`${base}/projects/${project.id}/endpoints/${ep.id}`);

    await page.getByRole('button', { name: 'Connect' }).click();
    const talk = page.getByRole('list', { name: 'Conversation' });
    await visible(talk.getByText(/connected to ws:/));
    await page.getByLabel('Message', { exact: true }).fill('hi');
    await page.getByRole('button', { name: 'Send' }).click();
    await visible(talk.getByText('you said hi'));
    await page.getByLabel('Channel', { exact: true }).selectOption('lobby');
    await page.getByLabel('Message to push').fill('breaking');
    await page.getByRole('button', { name: 'Push' }).click();
    await visible(talk.getByText('breaking'));
    await visible(page.getByText('Delivered to 1 socket; 1 open.'));
    await page.getByRole('button', { name: 'List open sockets' }).click();
    await visible(page.getByRole('cell', { name: 'default, lobby' }));
    await shot(page, 'websocket.png');

    // a rule on connect, set in the editor
    await page.getByRole('button', { name: 'Add rule' }).click();
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Rule name').fill('greet');
    await form.getByLabel('Runs on').selectOption('connect');
    await form.getByRole('group', { name: 'Step 1' }).getByLabel('Body', { exact: true }).fill('welcome');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await poll(async () =>
      (await api('GET', `/api/projects/${project.id}/endpoints/${ep.id}`, undefined, token)).rules.map(
        (r: { on?: string }) => r.on ?? 'message',
      ),
    ).toContain('connect');
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('button', { name: 'Connect' }).click();
    await visible(talk.getByText('welcome'));

    // the inspector: a socket's conversation as a timeline, with the rule of each message in
    await page.goto(`${base}/projects/${project.id}/requests`);
    await page
      .getByRole('button', { name: /WS \/chat/ })
      .first()
      .click();
    const conversation = page.getByRole('list', { name: 'Conversation' });
    await visible(conversation.getByText('connect').first());
    await visible(conversation.getByText(/rule “greet”/));
    await shot(page, 'websocket-conversation.png');

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
