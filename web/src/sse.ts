import { getToken } from './api';

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * Incremental Server-Sent Events parser (WHATWG "event stream interpretation"): feed it text chunks,
 * it calls `onEvent` for each complete event. Comment lines (`:`) and unknown fields are ignored.
 */
export function createSseParser(onEvent: (e: SseEvent) => void): (chunk: string) => void {
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  return (chunk: string) => {
    buffer += chunk;
    // A line ends at \r\n, \n or \r; keep an incomplete last line (and a lone trailing \r) for later.
    for (;;) {
      const m = /\r\n|\n|\r/.exec(buffer);
      if (!m) break;
      if (m[0] === '\r' && m.index === buffer.length - 1) break;
      const line = buffer.slice(0, m.index);
      buffer = buffer.slice(m.index + m[0].length);
      if (line === '') {
        if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n'), id });
        data = [];
        event = '';
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id') id = value;
    }
  };
}

/**
 * Follows an SSE endpoint with `fetch()` so that the bearer token travels in a header (EventSource
 * cannot send one, and the token must never appear in a URL). Reconnects with backoff until `close()`.
 */
export function followStream(
  url: string,
  handlers: { onData: (data: string) => void; onStatus: (s: StreamStatus) => void; onUnauthorized?: () => void },
): { close: () => void } {
  const controller = new AbortController();
  let attempt = 0;
  let closed = false;

  const run = async () => {
    while (!closed) {
      handlers.onStatus(attempt === 0 ? 'connecting' : 'reconnecting');
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        const token = getToken();
        if (token) headers.authorization = `Bearer ${token}`;
        const res = await fetch(url, { headers, signal: controller.signal, cache: 'no-store' });
        if (res.status === 401) {
          handlers.onUnauthorized?.();
          closed = true;
          break;
        }
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        handlers.onStatus('live');
        attempt = 0;
        const parse = createSseParser((e) => {
          if (e.event === 'message') handlers.onData(e.data);
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parse(value);
        }
      } catch {
        if (closed || controller.signal.aborted) break;
      }
      if (closed) break;
      attempt += 1;
      handlers.onStatus('reconnecting');
      const wait = Math.min(15_000, 500 * 2 ** Math.min(attempt, 5));
      await new Promise((r) => setTimeout(r, wait));
    }
    handlers.onStatus('closed');
  };
  void run();
  return {
    close: () => {
      closed = true;
      controller.abort();
    },
  };
}
