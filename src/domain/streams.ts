/**
 * What a response step may stream instead of one body (docs/streams.md): Server-Sent Events, a body
 * dribbled in chunks, or an LLM provider's answer in its own wire format. One TypeBox definition,
 * used by the record (records.ts), the API's input (schemas.ts), imports and the OpenAPI document.
 */
import { Type } from '@sinclair/typebox';
import { LIMITS } from './constants.js';

const strEnum = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

import { LLM_PROVIDERS, STREAM_FAULTS } from './constants.js';

export { LLM_PROVIDERS, type LlmProvider, STREAM_FAULTS } from './constants.js';

export const SseEventSchema = Type.Object(
  {
    event: Type.Optional(Type.String({ maxLength: 200 })),
    id: Type.Optional(Type.String({ maxLength: 200 })),
    /** a template, or an object or array sent as JSON */
    data: Type.Optional(Type.Unknown()),
    retry: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
    comment: Type.Optional(Type.String({ maxLength: 1000 })),
    /** wait before this event, from the previous one */
    delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.maxDelayMs })),
    /** end the stream here this way */
    fault: Type.Optional(strEnum(STREAM_FAULTS)),
  },
  { additionalProperties: false },
);

export const ChunksSchema = Type.Object(
  {
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 * 1024 })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    intervalMs: Type.Integer({ minimum: 0, maximum: LIMITS.maxDelayMs }),
  },
  { additionalProperties: false },
);

export const ToolCallSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    /** an object, or a template that renders JSON */
    arguments: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const LlmSchema = Type.Object(
  {
    provider: strEnum(LLM_PROVIDERS),
    /** the answer's text (a template); absent: the last user message, echoed */
    text: Type.Optional(Type.String({ maxLength: LIMITS.bodyLength })),
    toolCalls: Type.Optional(Type.Array(ToolCallSchema, { maxItems: 20 })),
    model: Type.Optional(Type.String({ maxLength: 200 })),
    chunkChars: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.maxDelayMs })),
    finishReason: Type.Optional(Type.String({ maxLength: 50 })),
    usage: Type.Optional(
      Type.Object(
        { input: Type.Integer({ minimum: 0 }), output: Type.Integer({ minimum: 0 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The stream fields of a step (at most one of `events`, `chunks`, `llm`). */
export const StepStreamFields = {
  events: Type.Optional(Type.Array(SseEventSchema, { maxItems: 1000 })),
  /** how many times the events are sent */
  repeat: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  /** keep the stream open after the last event (a comment line every 15 s) */
  keepOpen: Type.Optional(Type.Boolean()),
  chunks: Type.Optional(ChunksSchema),
  llm: Type.Optional(LlmSchema),
};
