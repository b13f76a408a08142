/**
 * Streamed answers of a step (docs/streams.md): Server-Sent Events written one by one after their
 * delays, a body dribbled in chunks, and LLM provider streams (llm.ts builds their events). Timers
 * stop at once when the client leaves; a client that does not read is not written to past the
 * socket's buffer (each write waits for `drain`), so a slow reader never grows the server's memory.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Step } from '../domain/model.js';
import type { MockContext } from './context.js';
import type { OutHeaders } from './respond.js';
import { compileTemplate, constantTemplate, type Template } from './template.js';

/** How often a kept-open stream writes a comment line, so proxies keep it. */
export const HEARTBEAT_MS = 15_000;

export interface CompiledEvent {
  readonly event?: string;
  readonly id?: string;
  readonly retry?: number;
  readonly comment?: string;
  readonly delayMs: number;
  readonly fault?: 'connection_reset' | 'stall';
  /** the data as a template (a string) or as constant JSON text (an object or array); null: none */
  readonly data: Template | null;
}

export type CompiledStream =
  | {
      readonly kind: 'events';
      readonly events: readonly CompiledEvent[];
      readonly repeat: number;
      readonly keepOpen: boolean;
    }
  | { readonly kind: 'chunks'; readonly size?: number; readonly count?: number; readonly intervalMs: number }
  | { readonly kind: 'llm'; readonly llm: NonNullable<Step['llm']>; readonly text: Template | null };

/** The step's stream, compiled once; null for a step that answers one body. `sources` collects its templates. */
export function compileStream(s: Step, sources: string[]): CompiledStream | null {
  if (s.events) {
    const events = s.events.map((e): CompiledEvent => {
      let data: Template | null = null;
      if (typeof e.data === 'string') {
        sources.push(e.data);
        data = compileTemplate(e.data);
      } else if (e.data !== undefined) data = constantTemplate(JSON.stringify(e.data));
      return {
        event: e.event,
        id: e.id,
        retry: e.retry,
        comment: e.comment,
        delayMs: e.delayMs ?? 0,
        fault: e.fault,
        data,
      };
    });
    return { kind: 'events', events, repeat: s.repeat ?? 1, keepOpen: s.keepOpen === true };
  }
  if (s.chunks) return { kind: 'chunks', ...s.chunks };
  if (s.llm) {
    if (s.llm.text !== undefined) sources.push(s.llm.text);
    for (const t of s.llm.toolCalls ?? []) if (typeof t.arguments === 'string') sources.push(t.arguments);
    return { kind: 'llm', llm: s.llm, text: s.llm.text === undefined ? null : compileTemplate(s.llm.text) };
  }
  return null;
}

/** One event in SSE framing: a multi-line value as several `data:` lines. */
export function frame(e: { event?: string; id?: string; retry?: number; comment?: string; data?: string }): string {
  let out = '';
  if (e.comment !== undefined) for (const line of e.comment.split(/\r\n|\r|\n/)) out += `: ${line}\n`;
  if (e.event !== undefined) out += `event: ${e.event}\n`;
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  if (e.retry !== undefined) out += `retry: ${e.retry}\n`;
  if (e.data !== undefined) for (const line of e.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** What a streamed answer sent, for the request log. */
export interface StreamNote {
  events: number;
  /** when each event went out, ms after the head (the first 1,000) */
  times: number[];
  /** the first 64 KiB written */
  sent: string;
  startedAt: number;
}

const SENT_KEEP = 64 * 1024;
/** The times of at most this many events are kept for the log. */
const EVENT_TIMES = 1000;

/** The streams being written in this process (ended at shutdown: endStreams). */
const OPEN = new Set<StreamWriter>();

/** The local ports of servers that are stopping (a process may run several, as the tests do). */
const STOPPING = new Set<number>();

/**
 * A server's shutdown (`port`: the one it listens on): a stream that only holds its connection (kept
 * open after its events, or a stall) ends now; one still sending what its step says finishes like any
 * request in flight (within the server's drain bound), then closes its connection.
 */
export function endStreams(port: number): void {
  STOPPING.add(port);
  for (const w of OPEN) if (w.stopping && w.holding) w.end(true);
}

/** The server on `port` is gone: a new one may take the port. */
export function streamsStopped(port: number): void {
  STOPPING.delete(port);
}

/** A writer that waits: resolves false when the client is gone. */
export class StreamWriter {
  readonly note: StreamNote = { events: 0, times: [], sent: '', startedAt: Date.now() };
  private headAt = 0;
  private closed = false;
  private timers = new Set<NodeJS.Timeout>();
  private wake: (() => void) | null = null;
  /** only holding the connection open (heartbeats or a stall): ended at once at shutdown */
  holding = false;
  private readonly port: number | undefined;

  constructor(private readonly res: ServerResponse) {
    OPEN.add(this);
    this.port = res.socket?.localPort;
    const gone = () => {
      OPEN.delete(this);
      this.closed = true;
      for (const t of this.timers) clearTimeout(t);
      this.timers.clear();
      this.wake?.();
    };
    res.on('close', gone);
  }

  /** the server writing this stream is shutting down */
  get stopping(): boolean {
    return this.port !== undefined && STOPPING.has(this.port);
  }

  get open(): boolean {
    return !this.closed && !this.res.destroyed && !this.res.writableEnded;
  }

  head(status: number, headers: OutHeaders): void {
    // the headers come from answerHeaders: CORS and the sandbox policy are among them
    this.res.writeHead(status, headers as OutgoingHttpHeaders);
    this.res.flushHeaders();
    this.headAt = performance.now();
  }

  /** Writes `text`; waits for the socket to drain when its buffer is full. */
  async write(text: string | Buffer): Promise<boolean> {
    if (!this.open) return false;
    if (this.note.sent.length < SENT_KEEP) {
      const s = typeof text === 'string' ? text : text.toString('utf8');
      this.note.sent += s.slice(0, SENT_KEEP - this.note.sent.length);
    }
    if (this.res.write(text)) return true;
    await new Promise<void>((r) => {
      this.wake = r;
      this.res.once('drain', () => r());
    });
    this.wake = null;
    return this.open;
  }

  /** Notes that an event went out (counted, and its time kept for the log). */
  sent(): void {
    this.note.events++;
    if (this.note.times.length < EVENT_TIMES) this.note.times.push(Math.round(performance.now() - this.headAt));
  }

  /** Waits `ms`; false when the client left meanwhile. */
  sleep(ms: number): Promise<boolean> {
    if (!this.open) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.wake = null;
        resolve(this.open);
      }, ms);
      this.timers.add(t);
      this.wake = () => {
        clearTimeout(t);
        this.timers.delete(t);
        resolve(false);
      };
    });
  }

  /** Ends the answer; `closing`: and the connection too (shutdown: it would otherwise idle on). */
  end(closing = this.stopping): void {
    if (!this.open) return;
    const sock = this.res.socket;
    this.res.end(closing ? () => sock?.end() : undefined);
  }

  /** Ends the stream with a fault: a reset connection, or a stall (nothing more is written, the socket stays open). */
  async fault(kind: 'connection_reset' | 'stall'): Promise<void> {
    const sock = this.res.socket;
    if (kind === 'connection_reset') {
      // what was written reaches the client first: a reset discards what the peer has not read yet
      for (let i = 0; i < 100 && sock && sock.writableLength > 0; i++) if (!(await this.sleep(10))) return;
      if (!(await this.sleep(50))) return;
      if (sock && typeof sock.resetAndDestroy === 'function') sock.resetAndDestroy();
      else sock?.destroy();
      return;
    }
    // a stall: the client waits until it gives up (or the server's request timeout ends it)
    if (!this.hold()) return;
    while (this.open) await this.sleep(HEARTBEAT_MS * 4);
  }

  /** Marks the stream as only holding its connection; false (and ended) when the process is stopping. */
  hold(): boolean {
    this.holding = true;
    if (!this.stopping) return true;
    this.end(true);
    return false;
  }
}

/** Writes a step's events: each after its delay, `repeat` times, then ends or keeps the stream open. */
export async function writeEvents(
  w: StreamWriter,
  stream: Extract<CompiledStream, { kind: 'events' }>,
  ctx: MockContext,
): Promise<void> {
  let index = 0;
  for (let round = 0; round < stream.repeat; round++) {
    for (const e of stream.events) {
      if (!(await w.sleep(e.delayMs))) return;
      if (e.fault) return w.fault(e.fault);
      ctx.stream = { index, round };
      const data = e.data ? e.data(ctx) : undefined;
      if (!(await w.write(frame({ event: e.event, id: e.id, retry: e.retry, comment: e.comment, data })))) return;
      w.sent();
      index++;
    }
  }
  ctx.stream = undefined;
  if (!stream.keepOpen || !w.hold()) return w.end();
  while (w.open) {
    if (!(await w.sleep(HEARTBEAT_MS))) return;
    if (!(await w.write(':\n\n'))) return;
  }
}

/** Writes `body` in pieces, one every `intervalMs`. */
export async function writeChunks(
  w: StreamWriter,
  stream: Extract<CompiledStream, { kind: 'chunks' }>,
  body: string,
): Promise<void> {
  const bytes = Buffer.from(body);
  const size = stream.size ?? Math.max(1, Math.ceil(bytes.length / (stream.count ?? 1)));
  for (let at = 0; at < bytes.length; at += size) {
    if (at > 0 && !(await w.sleep(stream.intervalMs))) return;
    if (!(await w.write(bytes.subarray(at, at + size)))) return;
  }
  w.end();
}
