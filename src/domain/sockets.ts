/**
 * WebSocket mocks' shapes (docs/websocket.md): an endpoint with method `WS`, rules triggered on
 * `connect`, `message` or `close`, steps that send messages and may close the socket, and the
 * `broadcast` action's channels.
 */
import { Type } from '@sinclair/typebox';

export const TRIGGERS = ['connect', 'message', 'close'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export const TriggerSchema = Type.Union(
  TRIGGERS.map((t) => Type.Literal(t)),
  { description: 'WebSocket endpoints: the rule runs on connect, on each message (default) or on close' },
);

/** Bytes of one message, in or out (docs/limits.md, MOCKYARD_MAX_WS_MESSAGE_BYTES). */
export const WS_LIMITS = {
  messageBytes: 1024 * 1024,
  socketsPerProject: 1000,
  idleMs: 10 * 60_000,
  messagesPerStep: 100,
} as const;

export const CHANNEL_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;

export const SocketMessageSchema = Type.Object(
  {
    body: Type.String({ maxLength: WS_LIMITS.messageBytes, description: 'a template' }),
    delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000, description: 'after the previous message' })),
  },
  { additionalProperties: false },
);

export const SocketCloseSchema = Type.Object(
  {
    code: Type.Integer({
      minimum: 1000,
      maximum: 4999,
      description: 'a WebSocket close code (1000 normal, 4000–4999 yours)',
    }),
    reason: Type.Optional(Type.String({ maxLength: 123 })),
  },
  { additionalProperties: false },
);

/** Step fields of a WebSocket endpoint's rules (a step of an HTTP endpoint ignores them). */
export const StepSocketFields = {
  messages: Type.Optional(Type.Array(SocketMessageSchema, { maxItems: WS_LIMITS.messagesPerStep })),
  close: Type.Optional(SocketCloseSchema),
};

export interface SocketMessage {
  body: string;
  delayMs?: number;
}
