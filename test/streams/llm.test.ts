/**
 * LLM answers (docs/streams.md) read by the official `openai` and `@anthropic-ai/sdk` clients —
 * streaming and not, text and tool calls — from the presets and from rules.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';

describe('streams', () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    const u = await s.client.user();
    token = u.token;
    await s.client.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'business' }, ADMIN_TOKEN);
  });
  afterAll(() => s.close());

  describe('LLM APIs with the official clients', () => {
    let openai: OpenAI;
    let anthropic: Anthropic;
    beforeAll(async () => {
      const p = (await s.client.project(token, 'llm')).id;
      const o = await s.client.api('POST', `/api/projects/${p}/presets`, { preset: 'openai' }, token);
      expect(o.status).toBe(201);
      expect(o.json.created.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
        'POST /v1/chat/completions',
        'POST /v1/responses',
        'GET /v1/models',
      ]);
      const a = await s.client.api('POST', `/api/projects/${p}/presets`, { preset: 'anthropic' }, token);
      expect(a.status).toBe(201);
      openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${s.client.base}/m/${p}/v1`, maxRetries: 0 });
      anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: `${s.client.base}/m/${p}`, maxRetries: 0 });
      // a tool-calling rule on each, for requests that offer tools
      const endpoints = (await s.client.api('GET', `/api/projects/${p}/endpoints`, undefined, token)).json as {
        id: string;
        path: string;
      }[];
      for (const e of endpoints.filter((x) => x.path !== '/v1/models')) {
        const provider =
          e.path === '/v1/messages'
            ? 'anthropic.messages'
            : e.path === '/v1/responses'
              ? 'openai.responses'
              : 'openai.chat';
        await s.client.rule(token, p, e.id, {
          name: 'tools',
          priority: -1,
          conditions: [{ target: 'body_json', key: 'tools', operator: 'exists' }],
          response: {
            steps: [
              {
                statusCode: 200,
                llm: {
                  provider,
                  toolCalls: [{ name: 'get_weather', arguments: '{"city":"{{request.headers.x-city}}"}' }],
                  chunkChars: 5,
                  delayMs: 1,
                },
              },
            ],
          },
        });
      }
    });
    const tool = {
      type: 'function' as const,
      function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    };

    it('OpenAI chat completions: echo, streamed and not, and a tool call', async () => {
      const one = await openai.chat.completions.create({
        model: 'gpt-x',
        messages: [{ role: 'user', content: 'Hello there' }],
      });
      expect(one.choices[0].message.content).toBe('Hello there');
      expect(one.model).toBe('gpt-x');
      expect(one.usage?.total_tokens).toBeGreaterThan(0);
      const stream = await openai.chat.completions.create({
        model: 'gpt-x',
        messages: [{ role: 'user', content: 'A longer message, streamed in pieces' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let chunks = 0;
      for await (const c of stream) {
        chunks++;
        text += c.choices[0]?.delta?.content ?? '';
      }
      expect(text).toBe('A longer message, streamed in pieces');
      expect(chunks).toBeGreaterThan(3);
      const withTool = await openai.chat.completions.create(
        { model: 'gpt-x', messages: [{ role: 'user', content: 'weather?' }], tools: [tool] },
        { headers: { 'x-city': 'Oslo' } },
      );
      expect(withTool.choices[0].finish_reason).toBe('tool_calls');
      expect(withTool.choices[0].message.tool_calls?.[0]).toMatchObject({
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
      });
      const runner = openai.chat.completions.stream(
        { model: 'gpt-x', messages: [{ role: 'user', content: 'weather?' }], tools: [tool] },
        { headers: { 'x-city': 'Rome' } },
      );
      const final = await runner.finalChatCompletion();
      expect(final.choices[0].message.tool_calls?.[0]).toMatchObject({ function: { arguments: '{"city":"Rome"}' } });
      const models = await openai.models.list();
      expect(models.data[0].id).toBe('mockyard-model');
    });

    it('OpenAI responses: echo, streamed and not, and a function call', async () => {
      const one = await openai.responses.create({ model: 'gpt-x', input: 'Say hi' });
      expect(one.output_text).toBe('Say hi');
      const stream = await openai.responses.create({ model: 'gpt-x', input: 'Streamed answer here', stream: true });
      let text = '';
      let completed = false;
      for await (const e of stream) {
        if (e.type === 'response.output_text.delta') text += e.delta;
        if (e.type === 'response.completed') completed = true;
      }
      expect(text).toBe('Streamed answer here');
      expect(completed).toBe(true);
      const call = await openai.responses.create(
        {
          model: 'gpt-x',
          input: 'weather?',
          tools: [{ type: 'function', name: 'get_weather', parameters: {}, strict: false }],
        },
        { headers: { 'x-city': 'Lima' } },
      );
      expect(call.output[0]).toMatchObject({
        type: 'function_call',
        name: 'get_weather',
        arguments: '{"city":"Lima"}',
      });
    });

    it('Anthropic messages: echo, streamed and not, and tool use', async () => {
      const one = await anthropic.messages.create({
        model: 'claude-x',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Bonjour' }],
      });
      expect(one.content[0]).toMatchObject({ type: 'text', text: 'Bonjour' });
      expect(one.stop_reason).toBe('end_turn');
      const stream = anthropic.messages.stream({
        model: 'claude-x',
        max_tokens: 100,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Streamed from Anthropic' }] }],
      });
      let text = '';
      stream.on('text', (t) => {
        text += t;
      });
      const final = await stream.finalMessage();
      expect(text).toBe('Streamed from Anthropic');
      expect(final.content[0]).toMatchObject({ type: 'text', text: 'Streamed from Anthropic' });
      const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }];
      const used = await anthropic.messages.create(
        { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'weather?' }], tools },
        { headers: { 'x-city': 'Kyiv' } },
      );
      expect(used.stop_reason).toBe('tool_use');
      expect(used.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Kyiv' } });
      const streamedTool = await anthropic.messages
        .stream(
          { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'weather?' }], tools },
          { headers: { 'x-city': 'Quito' } },
        )
        .finalMessage();
      expect(streamedTool.content[0]).toMatchObject({ type: 'tool_use', input: { city: 'Quito' } });
    });
  });
});
