import { describe, expect, it } from 'vitest';
import type { CompiledStep } from './compile.js';
import { type LogRecord, Ring, SENT_BODY_CHARS } from './request-log-ring.js';

function rec(seq: number, sent: Partial<LogRecord> = {}): LogRecord {
  return {
    seq,
    at: '2026-11-24T00:00:00.000Z',
    method: 'POST',
    path: '/orders',
    query: 'a=1',
    rawHeaders: ['Host', 'mock.test', 'Authorization', 'secret'],
    body: '{"n":1}',
    endpointId: 'ep',
    ruleId: null,
    statusCode: 201,
    durationMs: 1,
    actions: [],
    rules: [],
    sentHeaders: { 'content-type': 'application/json', 'content-length': 9, 'content-security-policy': ['a', 'b'] },
    sentBody: `{"id":${seq}}`,
    sentShared: false,
    sentStep: null,
    sentDelay: 0,
    ...sent,
  };
}

const step = { index: 1, of: 3, fault: null } as unknown as CompiledStep;

describe('the answer sent, as the request log keeps it', () => {
  it('spells the headers and the body of the answer; a small body survives its slot being reused', () => {
    const ring = new Ring(2);
    ring.push(rec(1));
    // a fixed answer's body is kept by reference, a rendered one copied into the slot
    ring.push(rec(2, { sentBody: '{"id":2}', sentShared: true }));
    ring.push(rec(3)); // overwrites slot 1 in place
    const [a, b] = ring.ordered().map((s) => s.entry());
    expect(a.response).toEqual({
      headers: { 'content-type': 'application/json', 'content-length': '9', 'content-security-policy': 'a, b' },
      body: '{"id":2}',
    });
    expect(b.response?.body).toBe('{"id":3}');
    expect(b.headers.authorization).toBe('[redacted]');
  });

  it("copies the headers of a rendered answer (a reused slot shows only its own), shares a fixed answer's", () => {
    const ring = new Ring(1);
    ring.push(rec(1));
    const sent = { 'content-length': 7 };
    ring.push(rec(2, { sentHeaders: sent })); // the one slot, reused with fewer headers
    // the slot holds a copy, not the request's object (which would outlive its request there)
    sent['content-length'] = 99;
    expect(ring.ordered()[0].entry().response?.headers).toEqual({ 'content-length': '7' });
    const fixed = { 'content-type': 'text/plain' };
    ring.push(rec(3, { sentHeaders: fixed, sentShared: true }));
    expect(ring.ordered()[0].entry().response?.headers).toEqual({ 'content-type': 'text/plain' });
    ring.push(rec(4, { sentHeaders: null, sentStep: step }));
    expect(ring.ordered()[0].entry().response?.headers).toEqual({});
  });

  it('tells which step answered, after what delay, or its fault', () => {
    const ring = new Ring(4);
    ring.push(rec(1, { sentStep: step, sentDelay: 250 }));
    ring.push(
      rec(2, { sentStep: { ...step, fault: 'connection_reset' } as CompiledStep, sentHeaders: null, sentBody: '' }),
    );
    const [stepped, fault] = ring.ordered().map((s) => s.entry());
    expect(stepped.response).toMatchObject({ step: { index: 1, of: 3 }, delayMs: 250, body: '{"id":1}' });
    expect(fault.response).toEqual({ headers: {}, body: '', step: { index: 1, of: 3 }, fault: 'connection_reset' });
  });

  it('keeps larger bodies whole up to the cap and cuts bigger ones, telling so', () => {
    const ring = new Ring(4);
    const mid = 'é'.repeat(5000);
    const huge = 'x'.repeat(SENT_BODY_CHARS * 3);
    ring.push(rec(1, { sentBody: mid }));
    ring.push(rec(2, { sentBody: huge }));
    ring.push(rec(3, { sentHeaders: null, sentBody: '' }));
    const [m, h, none] = ring.ordered().map((s) => s.entry());
    expect(m.response?.body).toBe(mid);
    expect(m.response?.truncated).toBeUndefined();
    expect(h.response?.body).toHaveLength(SENT_BODY_CHARS);
    expect(h.response?.truncated).toBe(true);
    // an error of the service's own or a proxied answer: nothing noted, no `response`
    expect(none.response).toBeUndefined();
  });

  it('copies bodies of every size into one reused slot, growing and shrinking its buffer', () => {
    const ring = new Ring(1);
    const body = () => ring.ordered()[0].entry().response;
    const sizes = ['x'.repeat(SENT_BODY_CHARS * 2), '{"n":1}', 'é'.repeat(3000), '', '€'.repeat(100), 'y'.repeat(9000)];
    for (const sent of sizes) {
      ring.push(rec(1, { sentBody: sent }));
      expect(body()?.body).toBe(sent.slice(0, SENT_BODY_CHARS));
      expect(body()?.truncated).toBe(sent.length > SENT_BODY_CHARS ? true : undefined);
    }
    // a shared (compile-time) body is kept whole by reference and cut when read
    ring.push(rec(2, { sentBody: 'z'.repeat(SENT_BODY_CHARS + 5), sentShared: true }));
    expect(body()?.body).toBe('z'.repeat(SENT_BODY_CHARS));
    expect(body()?.truncated).toBe(true);
  });
});
