/**
 * LLM answers in each provider's own wire format (docs/streams.md): OpenAI chat completions, OpenAI
 * responses and Anthropic messages — one JSON answer, or with `"stream": true` in the request that
 * provider's Server-Sent Events — with text and tool calls, generated ids, `created` times and usage.
 * Text absent from the step echoes the request's last user message.
 */
import { randomBytes } from 'node:crypto';
import type { Step } from '../domain/model.js';
import type { MockContext } from './context.js';
import { compileTemplate, type Template } from './template.js';

type Llm = NonNullable<Step['llm']>;
type Json = Record<string, unknown>;

/** What to send: a JSON answer, or events (each already JSON text, with an SSE event name or none). */
export type LlmAnswer =
  | { readonly kind: 'json'; readonly body: string }
  | { readonly kind: 'events'; readonly events: readonly { event?: string; data: string }[]; readonly delayMs: number };

const rid = (prefix: string) => `${prefix}${randomBytes(12).toString('base64url')}`;
const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

/** The text of a message's content: a string, or its text parts joined. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) =>
        p && typeof p === 'object' && typeof (p as Json).text === 'string' ? ((p as Json).text as string) : '',
      )
      .join('');
  return '';
}

/** The request's last user message (chat `messages`, responses `input`). */
function lastUserText(body: Json): string {
  if (typeof body.input === 'string') return body.input;
  const list = (Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : []) as Json[];
  for (let i = list.length - 1; i >= 0; i--) if (list[i]?.role === 'user') return contentText(list[i].content);
  return '';
}

const pieces = (s: string, n: number): string[] => {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
};

interface Call {
  id: string;
  name: string;
  /** the arguments as JSON text */
  args: string;
}

const argTemplates = new WeakMap<object, Template>();

function toolCalls(spec: Llm, ctx: MockContext, prefix: string): Call[] {
  return (spec.toolCalls ?? []).map((t) => {
    let args = '{}';
    if (typeof t.arguments === 'string') {
      let tpl = argTemplates.get(t);
      if (!tpl) {
        tpl = compileTemplate(t.arguments);
        argTemplates.set(t, tpl);
      }
      args = tpl(ctx);
    } else if (t.arguments !== undefined) args = JSON.stringify(t.arguments);
    return { id: rid(prefix), name: t.name, args };
  });
}

const parsedArgs = (args: string): unknown => {
  try {
    return JSON.parse(args);
  } catch {
    return {};
  }
};

/** The answer of an `llm` step to this request. */
export function llmAnswer(spec: Llm, text: Template | null, ctx: MockContext): LlmAnswer {
  const doc = ctx.json();
  const body = (doc.ok && doc.value && typeof doc.value === 'object' ? doc.value : {}) as Json;
  const prompt = lastUserText(body);
  const out = text ? text(ctx) : prompt;
  const model = spec.model ?? (typeof body.model === 'string' ? body.model : 'mockyard-model');
  const stream = body.stream === true;
  const usage = spec.usage ?? { input: tokens(prompt), output: tokens(out) };
  const size = spec.chunkChars ?? 12;
  const delayMs = spec.delayMs ?? 20;
  const created = Math.floor(Date.now() / 1000);
  switch (spec.provider) {
    case 'openai.chat':
      return openAiChat(spec, ctx, { out, model, stream, usage, size, delayMs, created, body });
    case 'openai.responses':
      return openAiResponses(spec, ctx, { out, model, stream, usage, size, delayMs, created, body });
    default:
      return anthropic(spec, ctx, { out, model, stream, usage, size, delayMs, created, body });
  }
}

interface Shared {
  out: string;
  model: string;
  stream: boolean;
  usage: { input: number; output: number };
  size: number;
  delayMs: number;
  created: number;
  body: Json;
}

function openAiChat(spec: Llm, ctx: MockContext, s: Shared): LlmAnswer {
  const id = rid('chatcmpl-');
  const calls = toolCalls(spec, ctx, 'call_');
  const finish = spec.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
  const usage = {
    prompt_tokens: s.usage.input,
    completion_tokens: s.usage.output,
    total_tokens: s.usage.input + s.usage.output,
  };
  const content = calls.length > 0 && spec.text === undefined ? null : s.out;
  if (!s.stream) {
    const message: Json = { role: 'assistant', content, refusal: null };
    if (calls.length > 0)
      message.tool_calls = calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.args },
      }));
    return {
      kind: 'json',
      body: JSON.stringify({
        id,
        object: 'chat.completion',
        created: s.created,
        model: s.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage,
      }),
    };
  }
  const chunk = (delta: Json, finish_reason: string | null = null) =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created: s.created,
      model: s.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason }],
    });
  const events: { data: string }[] = [{ data: chunk({ role: 'assistant', content: '' }) }];
  if (content) for (const p of pieces(content, s.size)) events.push({ data: chunk({ content: p }) });
  calls.forEach((c, index) => {
    events.push({
      data: chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }),
    });
    for (const p of pieces(c.args, s.size))
      events.push({ data: chunk({ tool_calls: [{ index, function: { arguments: p } }] }) });
  });
  events.push({ data: chunk({}, finish) });
  const options = s.body.stream_options as Json | undefined;
  if (options?.include_usage === true)
    events.push({
      data: JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: s.created,
        model: s.model,
        choices: [],
        usage,
      }),
    });
  events.push({ data: '[DONE]' });
  return { kind: 'events', events, delayMs: s.delayMs };
}

function openAiResponses(spec: Llm, ctx: MockContext, s: Shared): LlmAnswer {
  const id = rid('resp_');
  const msgId = rid('msg_');
  const calls = toolCalls(spec, ctx, 'call_');
  const withText = !(calls.length > 0 && spec.text === undefined);
  const usage = {
    input_tokens: s.usage.input,
    output_tokens: s.usage.output,
    total_tokens: s.usage.input + s.usage.output,
  };
  const textPart = { type: 'output_text', text: s.out, annotations: [] };
  const message = { type: 'message', id: msgId, status: 'completed', role: 'assistant', content: [textPart] };
  const fnItems = calls.map((c) => ({
    type: 'function_call',
    id: rid('fc_'),
    call_id: c.id,
    name: c.name,
    arguments: c.args,
    status: 'completed',
  }));
  const output = [...(withText ? [message] : []), ...fnItems];
  const response = (status: string, out: unknown[]) => ({
    id,
    object: 'response',
    created_at: s.created,
    status,
    model: s.model,
    output: out,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: status === 'completed' ? usage : null,
    error: null,
    incomplete_details: null,
  });
  if (!s.stream) return { kind: 'json', body: JSON.stringify(response('completed', output)) };
  let seq = 0;
  const events: { event: string; data: string }[] = [];
  const emit = (type: string, fields: Json) =>
    events.push({ event: type, data: JSON.stringify({ type, sequence_number: seq++, ...fields }) });
  emit('response.created', { response: response('in_progress', []) });
  emit('response.in_progress', { response: response('in_progress', []) });
  let index = 0;
  if (withText) {
    emit('response.output_item.added', {
      output_index: index,
      item: { ...message, status: 'in_progress', content: [] },
    });
    const part = { item_id: msgId, output_index: index, content_index: 0 };
    emit('response.content_part.added', { ...part, part: { ...textPart, text: '' } });
    for (const p of pieces(s.out, s.size)) emit('response.output_text.delta', { ...part, delta: p });
    emit('response.output_text.done', { ...part, text: s.out });
    emit('response.content_part.done', { ...part, part: textPart });
    emit('response.output_item.done', { output_index: index, item: message });
    index++;
  }
  for (const item of fnItems) {
    emit('response.output_item.added', {
      output_index: index,
      item: { ...item, arguments: '', status: 'in_progress' },
    });
    for (const p of pieces(item.arguments, s.size))
      emit('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: p });
    emit('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: item.arguments });
    emit('response.output_item.done', { output_index: index, item });
    index++;
  }
  emit('response.completed', { response: response('completed', output) });
  return { kind: 'events', events, delayMs: s.delayMs };
}

function anthropic(spec: Llm, ctx: MockContext, s: Shared): LlmAnswer {
  const id = rid('msg_');
  const calls = toolCalls(spec, ctx, 'toolu_');
  const withText = !(calls.length > 0 && spec.text === undefined);
  const stop = spec.finishReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn');
  const content = [
    ...(withText ? [{ type: 'text', text: s.out }] : []),
    ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: parsedArgs(c.args) })),
  ];
  const message = (blocks: unknown[], stopReason: string | null, output: number) => ({
    id,
    type: 'message',
    role: 'assistant',
    model: s.model,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: s.usage.input, output_tokens: output },
  });
  if (!s.stream) return { kind: 'json', body: JSON.stringify(message(content, stop, s.usage.output)) };
  const events: { event: string; data: string }[] = [];
  const emit = (type: string, fields: Json) => events.push({ event: type, data: JSON.stringify({ type, ...fields }) });
  emit('message_start', { message: message([], null, 1) });
  let index = 0;
  if (withText) {
    emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const p of pieces(s.out, s.size))
      emit('content_block_delta', { index, delta: { type: 'text_delta', text: p } });
    emit('content_block_stop', { index });
    index++;
  }
  for (const c of calls) {
    emit('content_block_start', { index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
    const json = JSON.stringify(parsedArgs(c.args));
    for (const p of pieces(json, s.size))
      emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } });
    emit('content_block_stop', { index });
    index++;
  }
  emit('message_delta', {
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: s.usage.output },
  });
  emit('message_stop', {});
  return { kind: 'events', events, delayMs: s.delayMs };
}
