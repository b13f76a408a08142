/** The inspector's reasoning (inspect.ts) on logged requests, without a browser. */
import { describe, expect, it } from 'vitest';
import type { LogEntry, Rule } from '../types';
import {
  curlOf,
  filtersToSearch,
  parseFilters,
  passesFilters,
  receivedValue,
  replayInit,
  ruleStatuses,
} from './inspect';

const entry: LogEntry = {
  id: 'l1',
  at: '2026-11-24T10:00:00.000Z',
  method: 'POST',
  path: '/orders/7',
  query: 'tier=gold&x=1',
  headers: { 'x-tier': 'gold', host: 'localhost:3000', 'content-type': 'application/json', 'x-mockyard-session': 's1' },
  body: '{"user":{"name":"Ada","age":36},"items":[{"sku":"a"}]}',
  endpointId: 'e1',
  ruleId: 'r3',
  statusCode: 201,
  durationMs: 1,
  actions: [],
  rules: [
    { ruleId: 'r1', name: 'vip', matched: false, failedCondition: 1 },
    { ruleId: 'r3', name: 'default', matched: true },
  ],
  session: 's1',
};
const rule = (id: string, priority: number, extra: Partial<Rule> = {}): Rule => ({
  id,
  endpointId: 'e1',
  name: id,
  priority,
  active: true,
  conditions: [],
  response: null,
  actions: [],
  state: { step: 0, served: 0 },
  createdAt: `2026-11-24T09:00:0${priority}.000Z`,
  updatedAt: '2026-11-24T09:00:00.000Z',
  ...extra,
});

describe('the inspector', () => {
  it('reads what each condition received from the logged request', () => {
    expect(receivedValue({ target: 'header', key: 'X-Tier', operator: 'equals', value: 'vip' }, entry)).toEqual({
      known: true,
      value: 'gold',
    });
    expect(receivedValue({ target: 'query', key: 'tier', operator: 'equals', value: 'vip' }, entry).value).toBe('gold');
    expect(
      receivedValue({ target: 'body_json', key: 'user.age', operator: 'less_than', value: '18' }, entry).value,
    ).toBe('36');
    expect(receivedValue({ target: 'body_json', key: 'items.0', operator: 'exists' }, entry).value).toBe('{"sku":"a"}');
    expect(receivedValue({ target: 'body_json', key: 'user.nope', operator: 'exists' }, entry)).toEqual({
      known: true,
      value: undefined,
    });
    expect(receivedValue({ target: 'project', key: 'cart', operator: 'equals', value: 'full' }, entry)).toEqual({
      known: false,
    });
  });

  it('says what every rule did: failed at condition N with the value received, inactive, matched, not reached', () => {
    const rules = [
      rule('r1', 1, {
        conditions: [
          { target: 'method', operator: 'equals', value: 'POST' },
          { target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' },
        ],
      }),
      rule('r2', 2, { active: false }),
      rule('r3', 3),
      rule('r4', 4),
      rule('other', 0, { endpointId: 'e2' }),
    ];
    const s = ruleStatuses(entry, rules);
    expect(s.map((x) => [x.rule.id, x.status])).toEqual([
      ['r1', 'failed'],
      ['r2', 'inactive'],
      ['r3', 'matched'],
      ['r4', 'not_reached'],
    ]);
    expect(s[0]).toMatchObject({ index: 1, received: { known: true, value: 'gold' }, condition: { value: 'vip' } });
  });

  it('copies the request as curl and replays it without the hop’s own headers', () => {
    const curl = curlOf({ ...entry, body: `it's` }, 'http://127.0.0.1:3000/m/p1');
    expect(curl).toBe(
      "curl -X POST 'http://127.0.0.1:3000/m/p1/orders/7?tier=gold&x=1' -H 'x-tier: gold' -H 'content-type: application/json' -H 'x-mockyard-session: s1' --data-binary 'it'\\''s'",
    );
    const init = replayInit(entry);
    expect(init.method).toBe('POST');
    expect(init.body).toBe(entry.body);
    expect((init.headers as Headers).get('host')).toBeNull();
    expect((init.headers as Headers).get('x-mockyard-session')).toBe('s1');
    expect(replayInit({ ...entry, method: 'GET' }).body).toBeUndefined();
  });

  it('keeps the filters in the URL and applies them', () => {
    const f = parseFilters('?method=POST&status=2xx&path=ORDERS&session=s1&junk=1');
    expect(f).toEqual({ method: 'POST', status: '2xx', path: 'ORDERS', session: 's1' });
    expect(filtersToSearch(f)).toBe('?method=POST&status=2xx&path=ORDERS&session=s1');
    expect(filtersToSearch({})).toBe('');
    expect(passesFilters(f, entry)).toBe(true);
    expect(passesFilters({ status: '4xx' }, entry)).toBe(false);
    expect(passesFilters({ path: 'gold' }, entry)).toBe(true); // the query is part of the text searched
    expect(passesFilters({ rule: 'r3' }, entry)).toBe(true);
    expect(passesFilters({ rule: 'none' }, entry)).toBe(false);
    expect(passesFilters({ session: 'none' }, entry)).toBe(false);
  });
});
