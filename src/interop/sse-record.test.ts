import { describe, expect, it } from 'vitest';
import { recordedEvents } from './sse-record.js';

describe('a recorded SSE answer', () => {
  it('keeps each event, its fields and the delay seen before it; comments and a cut-off last event are left out', () => {
    const first = 'event: tick\nid: 1\ndata: {"n":1}\n\n';
    const second = ': heartbeat\n\ndata: two\ndata: lines\nretry: 3000\n\n';
    const third = 'data: {{not a template}}\n\ndata: cut';
    const body = first + second + third;
    const arrivals: [number, number][] = [
      [first.length, 5],
      [first.length + second.length, 130],
      [body.length, 400],
    ];
    const events = recordedEvents(body, arrivals);
    expect(events).toEqual([
      { event: 'tick', id: '1', data: '{"n":1}', delayMs: 5 },
      { data: 'two\nlines', retry: 3000, delayMs: 125 },
      { data: '\\{{not a template}}', delayMs: 270 },
    ]);
    // no timing known: no delays
    expect(recordedEvents(first, []).map((e) => e.delayMs)).toEqual([0]);
  });
});
