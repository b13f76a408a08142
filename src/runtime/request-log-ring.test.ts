import { describe, expect, it } from 'vitest';
import type { CompiledStep } from './compile.js';
import { type LogRecord, type Pending, Ring, SENT_BODY_CHARS, settle } from './request-log-ring.js';

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
    const [a, b] = ring.entries();
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
    expect(ring.entry(0).response?.headers).toEqual({ 'content-length': '7' });
    const fixed = { 'content-type': 'text/plain' };
    ring.push(rec(3, { sentHeaders: fixed, sentShared: true }));
    expect(ring.entry(0).response?.headers).toEqual({ 'content-type': 'text/plain' });
    ring.push(rec(4, { sentHeaders: null, sentStep: step }));
    expect(ring.entry(0).response?.headers).toEqual({});
  });

  it('tells which step answered, after what delay, or its fault', () => {
    const ring = new Ring(4);
    ring.push(rec(1, { sentStep: step, sentDelay: 250 }));
    ring.push(
      rec(2, { sentStep: { ...step, fault: 'connection_reset' } as CompiledStep, sentHeaders: null, sentBody: '' }),
    );
    const [stepped, fault] = ring.entries();
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
    const [m, h, none] = ring.entries();
    expect(m.response?.body).toBe(mid);
    expect(m.response?.truncated).toBeUndefined();
    expect(h.response?.body).toHaveLength(SENT_BODY_CHARS);
    expect(h.response?.truncated).toBe(true);
    // an error of the service's own or a proxied answer: nothing noted, no `response`
    expect(none.response).toBeUndefined();
  });

  it('copies bodies of every size into one reused slot, growing and shrinking its buffer', () => {
    const ring = new Ring(1);
    const body = () => ring.entry(0).response;
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

describe('the request body, as the request log keeps it', () => {
  it('copies the bytes as received, and reads them back as the exchange decoded them (bytes that are not UTF-8 too)', () => {
    const ring = new Ring(4);
    const bytes = Buffer.from([0x7b, 0x22, 0xc3, 0xa9, 0x22, 0x3a, 0xff, 0xfe, 0x7d]);
    ring.push(rec(1, { body: bytes.toString('utf8'), rawBody: bytes, session: 'café' }));
    // bytes past what the log keeps of a body: the body as the exchange cut it
    const long = Buffer.from('é'.repeat(40 * 1024));
    ring.push(rec(2, { body: long.toString('utf8').slice(0, 64 * 1024), rawBody: long }));
    bytes.fill(0);
    const [a, b] = ring.entries();
    expect(a.body).toBe('{"é":\ufffd\ufffd}');
    expect(a.session).toBe('café');
    expect(b.body).toBe('é'.repeat(40 * 1024));
  });
});

describe('the ring against a model of it', () => {
  // a small deterministic generator, so a failure repeats
  let state = 20261124;
  const rnd = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const text = (): string => {
    const r = rnd();
    const unit = pick(['a', 'é', '€', '😀', 'xyz']);
    if (r < 0.3) return '';
    if (r < 0.8) return unit.repeat(1 + Math.floor(rnd() * 20));
    if (r < 0.98) return unit.repeat(100 + Math.floor(rnd() * 400)); // past a 256-byte region
    return 'h'.repeat(300 * 1024); // past COPY_MAX: kept by reference
  };
  const latin1 = (): string => pick(['', 'a=1', 'q=caf\u00e9', 'x'.repeat(1 + Math.floor(rnd() * 120))]);
  const sharedHeaders = { 'content-type': 'application/json', 'content-length': 2 };
  const sharedStep = { index: 0, of: 2, fault: null } as unknown as CompiledStep;
  const trace = { ruleId: 'r1', name: 'one', matched: true } as unknown as LogRecord['rules'][number];
  const outcome = { kind: 'webhook', ok: true } as unknown as LogRecord['actions'][number];
  let seq = 0;

  function record(): Pending {
    if (rnd() < 0.05) return settle(rec(++seq, { path: '/settled' })); // an entry streamed before it was queued
    const shared = rnd() < 0.3;
    const headerCount = Math.floor(rnd() * 4);
    const rawHeaders: string[] = [];
    for (let k = 0; k < headerCount; k++) rawHeaders.push(pick(['Host', 'X-Tier', 'Cookie']), latin1());
    // a body read from the wire comes with its bytes (exchange.ts), which the ring copies as they are
    const body = text();
    return rec(++seq, {
      method: pick(['GET', 'POST']),
      path: `/p/${latin1()}`,
      query: latin1(),
      rawHeaders,
      body,
      rawBody: rnd() < 0.5 ? Buffer.from(body) : pick([null, undefined]),
      endpointId: pick([null, 'ep1']),
      ruleId: pick([null, 'r1']),
      statusCode: pick([200, 201, 404, 500]),
      durationMs: Math.floor(rnd() * 1000) / 100,
      actions: Array.from({ length: Math.floor(rnd() * 3) }, () => outcome),
      rules: Array.from({ length: Math.floor(rnd() * 3) }, () => trace),
      proxied: rnd() < 0.2,
      session: pick(['', 's1', 'caf\u00e9-\u20ac', 's'.repeat(200)]),
      error: pick(['', 'render_too_large']),
      sentHeaders: shared ? sharedHeaders : pick([null, { 'x-a': 'b', 'content-length': 3, 'set-cookie': ['a', 'b'] }]),
      sentBody: shared ? '{}' : rnd() < 0.02 ? 'b'.repeat(SENT_BODY_CHARS + 3) : text(),
      sentShared: shared,
      sentStep: pick([null, sharedStep]),
      sentDelay: pick([0, 25]),
    });
  }

  it('holds the newest `cap` entries, oldest first, through growth, wrap-around, drops and text of every size', () => {
    for (let round = 0; round < 40; round++) {
      const cap = 1 + Math.floor(rnd() * 20);
      const ring = new Ring(cap);
      const model: ReturnType<typeof settle>[] = [];
      let overwritten = 0;
      for (let op = 0; op < 120; op++) {
        if (rnd() < 0.1) {
          ring.dropOldest();
          model.shift();
        } else {
          const p = record();
          ring.push(p);
          model.push('rawHeaders' in p ? structuredClone(settle(p)) : p);
          if (model.length > cap) {
            model.shift();
            overwritten++;
          }
          if ('rawHeaders' in p) {
            // the record may be the request's own exchange, changed later: the ring kept a copy
            p.rawBody?.fill(0x21);
            Object.assign(p, { path: '/changed', body: 'changed', session: 'changed', statusCode: 0, rawHeaders: [] });
            (p.actions as unknown[]).length = 0;
          }
        }
        expect(ring.length).toBe(model.length);
        if (op % 10 === 9) expect(ring.entries()).toEqual(model);
      }
      expect(ring.entries()).toEqual(model);
      expect(ring.overwritten).toBe(overwritten);
    }
  });
});
