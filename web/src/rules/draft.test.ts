/**
 * The rule editor's form model (draft.ts), without a browser: a rule survives the round trip
 * through the form, the form writes what the server expects, and client-side checks name the same
 * JSON pointers as the server's `details[].path`.
 */
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../src/domain/constants';
import type { Rule } from '../types';
import {
  describeCondition,
  draftAnchors,
  fromDraft,
  newAction,
  newCondition,
  newRuleDraft,
  newStep,
  toDraft,
  validateDraft,
} from './draft';

const rule: Rule = {
  id: 'r1',
  endpointId: 'e1',
  name: 'VIP flaky',
  priority: 10,
  active: true,
  conditions: [
    { target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' },
    { target: 'query', key: 'beta', operator: 'exists' },
    { target: 'random', operator: 'less_than', value: '25' },
  ],
  response: {
    mode: 'hold_last',
    steps: [
      { statusCode: 500, body: '', headers: { 'retry-after': '1' }, delayMs: 0, delayMaxMs: 0, count: 2 },
      { statusCode: 200, body: '{"ok":true}', headers: {}, delayMs: 10, delayMaxMs: 50, count: 1 },
      { statusCode: 200, body: '', headers: {}, delayMs: 0, delayMaxMs: 0, count: 1, fault: 'connection_reset' },
    ],
  },
  actions: [
    { type: 'set_variable', name: 'who', value: '{{request.query.id}}', onError: 'continue' },
    { type: 'store_variable', name: 'last', value: '{{vars.who}}', scope: 'project', onError: 'stop' },
    { type: 'delete_variable', name: 'old', onError: 'continue' },
    {
      type: 'http_request',
      url: 'https://hooks.example.test/{{vars.who}}',
      method: 'POST',
      headers: { 'x-a': '1' },
      body: '{}',
      applyResponse: true,
      timeoutMs: 2500,
      saveAs: 'hook',
      onError: 'continue',
    },
  ],
  state: { step: 0, served: 0 },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const writable = (r: Rule) => ({
  name: r.name,
  priority: r.priority,
  active: r.active,
  conditions: r.conditions,
  response: r.response,
  actions: r.actions,
});

describe('rule drafts', () => {
  it('a rule comes back unchanged through the form', () => {
    const d = toDraft(rule);
    expect(validateDraft(d)).toEqual(new Map());
    expect(fromDraft(d)).toEqual(writable(rule));
  });

  it('writes only the fields the operator and target take, trimmed', () => {
    const d = newRuleDraft(3, 2);
    d.name = '  Named  ';
    d.conditions = [
      { ...newCondition(), target: 'method', key: 'ignored', operator: 'exists', value: 'ignored' },
      { ...newCondition(), target: 'header', key: ' x-a ', operator: 'contains', value: ' v ' },
    ];
    // a new webhook action starts as a POST
    d.actions = [{ ...newAction('http_request'), url: ' https://a.test ', saveAs: '  ' }];
    const out = fromDraft(d);
    expect(out.name).toBe('Named');
    expect(out.priority).toBe(3);
    expect(out.conditions).toEqual([
      { target: 'method', operator: 'exists' },
      { target: 'header', key: 'x-a', operator: 'contains', value: ' v ' },
    ]);
    expect(out.actions[0]).toEqual({
      type: 'http_request',
      url: 'https://a.test',
      method: 'POST',
      headers: {},
      body: '',
      applyResponse: false,
      timeoutMs: 5000,
      onError: 'continue',
    });
    expect(out.response).toEqual({
      mode: 'loop',
      steps: [{ statusCode: 200, body: '', headers: {}, delayMs: 0, delayMaxMs: 0, count: 1 }],
    });
    d.hasResponse = false;
    expect(fromDraft(d).response).toBeNull();
  });

  it('checks what the server would refuse, at the server’s JSON pointers', () => {
    const d = newRuleDraft(0, 1);
    d.name = 'n'.repeat(LIMITS.nameLength + 1);
    d.priority = '1.5';
    d.conditions = [
      { ...newCondition(), target: 'query', key: ' ', operator: 'equals', value: 'x' },
      { ...newCondition(), target: 'random', operator: 'equals', value: '101' },
      { ...newCondition(), target: 'body', operator: 'less_than', value: 'ten' },
      { ...newCondition(), target: 'path', operator: 'matches_regex', value: '(' },
    ];
    d.steps = [{ ...newStep('99'), count: '0', delayMs: '-1', delayMaxMs: '5' }];
    d.actions = [
      { ...newAction('set_variable'), name: ' ' },
      { ...newAction('http_request'), url: 'ftp://x', timeoutMs: '10001', saveAs: '1bad' },
    ];
    const problems = [...validateDraft(d).keys()].sort();
    expect(problems).toEqual(
      [
        '/name',
        '/priority',
        '/conditions/0/key',
        '/conditions/1/operator',
        '/conditions/1/value',
        '/conditions/2/value',
        '/conditions/3/value',
        '/response/steps/0/statusCode',
        '/response/steps/0/count',
        '/response/steps/0/delayMs',
        '/actions/0/name',
        '/actions/1/url',
        '/actions/1/timeoutMs',
        '/actions/1/saveAs',
      ].sort(),
    );
    // every problem can be shown where the form has a place for it
    const anchors = new Set(draftAnchors(d));
    for (const k of problems) expect(anchors.has(k), k).toBe(true);
    // a response needs a step
    const empty = newRuleDraft(0, 1);
    empty.steps = [];
    expect([...validateDraft(empty).keys()]).toEqual(['/response/steps']);
  });

  it('describes conditions as the request log shows them', () => {
    expect(describeCondition({ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' })).toBe(
      'header x-tier equals “vip”',
    );
    expect(describeCondition({ target: 'query', key: 'beta', operator: 'exists' })).toBe('query parameter beta exists');
    expect(describeCondition({ target: 'random', operator: 'less_than', value: '25' })).toBe('random < 25 %');
  });
});

describe('stream fields in the form', () => {
  it('a step’s events, chunks or llm survive the round trip; bad JSON is named at its field', () => {
    const streaming: Rule = {
      ...rule,
      response: {
        mode: 'loop',
        steps: [
          {
            statusCode: 200,
            body: '',
            headers: {},
            delayMs: 0,
            delayMaxMs: 0,
            count: 1,
            events: [{ data: 'tick {{stream.index}}', delayMs: 100 }],
            repeat: 3,
            keepOpen: true,
          },
          {
            statusCode: 200,
            body: '',
            headers: {},
            delayMs: 0,
            delayMaxMs: 0,
            count: 1,
            llm: { provider: 'openai.chat' },
          },
        ],
      },
    };
    const d = toDraft(streaming);
    expect(JSON.parse(d.steps[0].stream)).toEqual({
      events: [{ data: 'tick {{stream.index}}', delayMs: 100 }],
      repeat: 3,
      keepOpen: true,
    });
    const back = fromDraft(d);
    expect(back.response?.steps[0]).toMatchObject({
      events: [{ data: 'tick {{stream.index}}', delayMs: 100 }],
      repeat: 3,
      keepOpen: true,
    });
    expect(back.response?.steps[1]).toMatchObject({ llm: { provider: 'openai.chat' } });
    d.steps[1].stream = '{"llm": ';
    expect(validateDraft(d).get('/response/steps/1/stream')).toBeDefined();
  });
});
