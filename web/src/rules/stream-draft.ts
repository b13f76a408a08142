/** A step's stream fields (docs/streams.md) as the rule editor's JSON text, and back. */
import type { Step } from '../types';

/** The stream fields of a step (docs/streams.md), and a WebSocket step's messages and close (docs/websocket.md). */
const STREAM_KEYS = ['events', 'repeat', 'keepOpen', 'chunks', 'llm', 'messages', 'close'] as const;

/** A step's stream fields as the editor's JSON text, '' when it answers one body. */
export function streamJson(s: Partial<Step>): string {
  const picked = Object.fromEntries(STREAM_KEYS.filter((k) => s[k] !== undefined).map((k) => [k, s[k]]));
  return Object.keys(picked).length === 0 ? '' : JSON.stringify(picked, null, 2);
}

/** The editor's stream JSON as step fields, or null when it is not a JSON object. */
export function parseStream(text: string): Partial<Step> | null {
  if (text.trim() === '') return {};
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Partial<Step>) : null;
  } catch {
    return null;
  }
}
