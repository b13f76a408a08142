import type { LogEntry } from '../types';
import { formatMs } from './ui';

interface SentEvent {
  event?: string;
  id?: string;
  data: string;
}

/** The events of an SSE body as written (comments, such as heartbeats, left out; a cut-off last one too). */
export function sseEvents(body: string): SentEvent[] {
  const out: SentEvent[] = [];
  const blocks = body.split(/\r\n\r\n|\n\n|\r\r/);
  blocks.pop(); // what follows the last blank line is not a whole event
  for (const block of blocks) {
    const e: SentEvent = { data: '' };
    const data: string[] = [];
    let any = false;
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      any = true;
      if (field === 'data') data.push(value);
      else if (field === 'event') e.event = value;
      else if (field === 'id') e.id = value;
    }
    if (!any) continue;
    e.data = data.join('\n');
    out.push(e);
  }
  return out;
}

/** A streamed answer's events with the time each went out (the inspector's stream viewer). */
export function StreamEvents({ response }: { response: NonNullable<LogEntry['response']> }) {
  const sse = String(response.headers['content-type'] ?? '').startsWith('text/event-stream');
  if (!response.events || !sse) return null;
  const events = sseEvents(response.body);
  const times = response.eventTimes ?? [];
  return (
    <>
      <h4>Events</h4>
      <div className="table-wrap">
        <table className="kv-table stream-events" aria-label="Events sent">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">At</th>
              <th scope="col">Event</th>
              <th scope="col">Id</th>
              <th scope="col">Data</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: events are in the order they were sent
              <tr key={i}>
                <td>{i + 1}</td>
                <td className="mono">{times[i] === undefined ? '—' : `+${formatMs(times[i])}`}</td>
                <td className="mono">{e.event ?? 'message'}</td>
                <td className="mono">{e.id ?? ''}</td>
                <td className="mono stream-data">{e.data}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {events.length < response.events && (
        <p className="hint">
          {response.events} events were sent; the log keeps the first 64 KiB ({events.length} of them).
        </p>
      )}
    </>
  );
}
