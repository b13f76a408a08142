/**
 * Streams in the dashboard, end to end (docs/streams.md): a rule's step edited as a list of SSE
 * events (add, delay, reorder) and as an LLM answer with a tool call, and the inspector's stream
 * viewer listing the events sent with their times. Needs /usr/bin/chromium, as dashboard.test.ts.
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

describe('dashboard: streams', () => {
  it('edits a step as SSE events and as an LLM answer; the inspector shows the events with their times', async () => {
    const { token, context, page, pageErrors } = await signedInPage();
    const project = await api('POST', '/api/projects', { name: 'Feeds' }, token);
    const ep = await api('POST', `/api/projects/${project.id}/endpoints`, { method: 'GET', path: '/feed' }, token);

    await page.goto(`${base}/projects/${project.id}/endpoints/${ep.id}`);
    await page.getByRole('button', { name: 'Add rule' }).click();
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Rule name').fill('ticks');
    await form.getByLabel('What step 1 streams').selectOption('events');
    const events = form.getByRole('list', { name: 'Events of step 1' });
    await events.getByLabel('Event 1 data').fill('{"n":1}');
    await events.getByLabel('Event 1 name').fill('tick');
    await form.getByRole('button', { name: '+ Add event' }).click();
    await events.getByLabel('Event 2 data').fill('second');
    await events.getByLabel('Event 2 delay (ms)').fill('120');
    // the second event first, then back: reordering keeps each event's fields
    await events.getByRole('button', { name: 'Move event 2 up' }).click();
    await poll(() => events.getByLabel('Event 1 data').inputValue()).toBe('second');
    await events.getByRole('button', { name: 'Move event 1 down' }).click();
    await poll(() => events.getByLabel('Event 2 delay (ms)').inputValue()).toBe('120');
    await shot(page, 'stream-events-editor.png');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await poll(() => form.count()).toBe(0);

    const [rule] = await api('GET', `/api/projects/${project.id}/endpoints/${ep.id}/rules`, undefined, token);
    expect(rule.response.steps[0].events).toEqual([
      { event: 'tick', data: { n: 1 } },
      { data: 'second', delayMs: 120 },
    ]);

    // the stream, then its log entry in the inspector
    const res = await fetch(`${base}/m/${project.id}/feed`);
    expect(await res.text()).toBe('event: tick\ndata: {"n":1}\n\ndata: second\n\n');
    await page.goto(`${base}/projects/${project.id}/requests`);
    await page
      .getByRole('button', { name: /GET \/feed/ })
      .first()
      .click();
    const table = page.getByRole('table', { name: 'Events sent' });
    await visible(table);
    await poll(() => table.getByRole('row').count()).toBe(3);
    await visible(table.getByRole('cell', { name: 'tick' }));
    await visible(table.getByRole('cell', { name: 'second' }));
    await shot(page, 'stream-inspector.png');

    // an LLM answer with a tool call, as a form
    await page.goto(`${base}/projects/${project.id}/endpoints/${ep.id}`);
    await page.getByRole('article', { name: 'ticks' }).getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: /Edit rule/ });
    await edit.getByLabel('What step 1 streams').selectOption('llm');
    await edit.getByLabel('Provider').selectOption('anthropic.messages');
    await edit.getByLabel('Answer text').fill('Sunny.');
    await edit.getByRole('button', { name: '+ Add tool call' }).click();
    await edit.getByLabel('Tool call 1 name').fill('lookup');
    await shot(page, 'stream-llm-editor.png');
    await edit.getByRole('button', { name: /Save/ }).click();
    await poll(
      async () =>
        (await api('GET', `/api/projects/${project.id}/endpoints/${ep.id}/rules`, undefined, token))[0].response
          .steps[0].llm,
    ).toEqual({
      provider: 'anthropic.messages',
      text: 'Sunny.',
      toolCalls: [{ name: 'lookup', arguments: { city: 'Paris' } }],
    });

    expect(pageErrors).toEqual([]);
    expect(violations, violations.join('\n')).toEqual([]);
    expect(smallTargets, smallTargets.join('\n')).toEqual([]);
    await context.close();
  }, 120_000);
});
