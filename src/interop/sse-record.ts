/**
 * An upstream Server-Sent Events answer, as record mode saw it, → an `events` step (docs/streams.md
 * "Record"): each event with its name, id, retry and data as sent (served as written, never rendered
 * as a template), and the delay the recorder observed before it — from the time the piece of the body
 * that completed the event arrived. Comments (heartbeats) are left out.
 */
import { verbatim } from './templates.js';

export interface RecordedEvent {
  event?: string;
  id?: string;
  data?: string;
  retry?: number;
  delayMs: number;
}

/** At most this many events are kept from one recorded stream. */
const MAX_EVENTS = 1000;

/**
 * `body`'s events; `arrivals` are [bytes received, ms] pairs of the raw body (none, or a body that was
 * decoded from a content-encoding: no delays).
 */
export function recordedEvents(body: string, arrivals: readonly [number, number][]): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  let last = 0;
  let offset = 0;
  let a = 0;
  const blocks = body.split(/(\r\n\r\n|\n\n|\r\r)/);
  for (let i = 0; i < blocks.length && out.length < MAX_EVENTS; i += 2) {
    const block = blocks[i];
    offset += Buffer.byteLength(block) + Buffer.byteLength(blocks[i + 1] ?? '');
    // an event is whole once its blank line has arrived; a last block without one was cut short
    if (blocks[i + 1] === undefined) break;
    const e: RecordedEvent = { delayMs: 0 };
    const data: string[] = [];
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'event') e.event = value.slice(0, 200);
      else if (field === 'id') e.id = value.slice(0, 200);
      else if (field === 'retry' && /^\d{1,7}$/.test(value)) e.retry = Number(value);
    }
    if (data.length === 0 && e.event === undefined && e.id === undefined && e.retry === undefined) continue;
    if (data.length > 0) e.data = verbatim(data.join('\n'));
    while (a < arrivals.length - 1 && arrivals[a][0] < offset) a++;
    const at = arrivals.length > 0 ? arrivals[a][1] : last;
    e.delayMs = Math.max(0, Math.min(60_000, at - last));
    last = Math.max(last, at);
    out.push(e);
  }
  return out;
}
