/**
 * Request matchers of foreign tools → Mockyard conditions (docs/api.md "Rules", docs/stateful-mocks.md). A matcher with no
 * equivalent answers null after a warning: the importer then imports its rule inactive (a rule
 * without the condition would match more widely than the original and shadow the rules after it).
 */
import type { Condition, Operator } from '../domain/model.js';
import { jsonPathToDots } from './templates.js';
import type { ImportWarning, Json } from './types.js';
import { isObject } from './types.js';

type Target = Condition['target'];

/** RE2 text matching `s` literally. */
export const quoteRegex = (s: string) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

export const cond = (target: Target, operator: Operator, key?: string, value?: string): Condition => {
  const c: Condition = { target, operator };
  if (key !== undefined) c.key = key;
  if (value !== undefined) c.value = value;
  return c;
};

/** Leaf values of a JSON value as `dot.path` → text (as a `body_json` condition reads them). */
export function jsonLeaves(value: unknown, prefix = ''): [string, string][] {
  if (Array.isArray(value) || isObject(value)) {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    if (entries.length === 0) return prefix ? [[prefix, JSON.stringify(value)]] : [];
    return entries.flatMap(([k, v]) => jsonLeaves(v, prefix ? `${prefix}.${k}` : k));
  }
  return [[prefix, typeof value === 'string' ? value : JSON.stringify(value)]];
}

/**
 * One WireMock value pattern (`{equalTo}`, `{contains}`, `{matches}`, `{absent}`, …) on a header, a
 * query parameter (`key`) or the body → conditions.
 */
export function wiremockPattern(
  target: 'header' | 'query' | 'body',
  key: string | undefined,
  m: unknown,
  pointer: string,
  warnings: ImportWarning[],
): Condition[] | null {
  const warn = (message: string) => {
    warnings.push({ pointer, message: `${message}; the rule is imported inactive` });
    return null;
  };
  if (!isObject(m)) return warn('a matcher must be an object');
  const insensitive = m.caseInsensitive === true;
  const str = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  if (m.equalTo !== undefined) {
    if (insensitive) return [cond(target, 'matches_regex', key, `(?i)^${quoteRegex(str(m.equalTo))}$`)];
    return [cond(target, 'equals', key, str(m.equalTo))];
  }
  if (m.contains !== undefined) return [cond(target, 'contains', key, str(m.contains))];
  if (m.doesNotContain !== undefined) return [cond(target, 'not_contains', key, str(m.doesNotContain))];
  if (m.matches !== undefined) return [cond(target, 'matches_regex', key, `^(?:${str(m.matches)})$`)];
  if (m.absent !== undefined) return [cond(target, m.absent === false ? 'exists' : 'not_exists', key)];
  if (target === 'body' && m.equalToJson !== undefined) {
    let json = m.equalToJson;
    if (typeof json === 'string') {
      try {
        json = JSON.parse(json);
      } catch {
        return warn('equalToJson is not JSON');
      }
    }
    const leaves = jsonLeaves(json);
    warnings.push({
      pointer,
      message:
        'equalToJson became one body_json equals condition per field: extra fields in the request are not checked',
    });
    if (leaves.length === 0) return [cond('body', 'equals', undefined, JSON.stringify(json))];
    return leaves.map(([path, value]) => cond('body_json', 'equals', path, value));
  }
  if (target === 'body' && m.matchesJsonPath !== undefined) {
    const jp = m.matchesJsonPath;
    const expr = typeof jp === 'string' ? jp : isObject(jp) ? jp.expression : undefined;
    const dots = typeof expr === 'string' ? jsonPathToDots(expr) : null;
    if (dots === null) return warn(`matchesJsonPath ${JSON.stringify(expr)} (filters, wildcards) has no condition`);
    if (typeof jp === 'string') return [cond('body_json', 'exists', dots)];
    const inner = wiremockPattern('body', undefined, jp, pointer, warnings);
    // the inner matcher reads the value at the path: the whole of it, or (equalToJson) its fields
    const under = (key: string | undefined) =>
      key === undefined || key === '' ? dots : dots === '' ? key : `${dots}.${key}`;
    return inner === null
      ? null
      : inner.map((c) => ({
          ...c,
          target: 'body_json' as const,
          key: under(c.target === 'body_json' ? c.key : undefined),
        }));
  }
  const kind = Object.keys(m).find((k) => k !== 'caseInsensitive') ?? '(empty)';
  return warn(`the matcher ${kind} has no Mockyard condition`);
}

/** Mockoon's rule operators: [operator, inverted operator]. */
export function mockoonCondition(
  target: Target,
  key: string | undefined,
  rule: Json,
  pointer: string,
  warnings: ImportWarning[],
): Condition | null {
  const value = rule.value === undefined || rule.value === null ? '' : String(rule.value);
  const invert = rule.invert === true;
  const warn = (message: string) => {
    warnings.push({ pointer, message: `${message}; the rule is imported inactive` });
    return null;
  };
  switch (rule.operator ?? 'equals') {
    case 'equals':
      return cond(target, invert ? 'not_equals' : 'equals', key, value);
    case 'regex':
    case 'regex_i': {
      if (invert) return warn('an inverted regex has no Mockyard condition');
      return cond(target, 'matches_regex', key, rule.operator === 'regex_i' ? `(?i)${value}` : value);
    }
    case 'null':
      return cond(target, invert ? 'exists' : 'not_exists', key);
    case 'empty_array':
      return cond(target, invert ? 'not_equals' : 'equals', key, '[]');
    case 'array_includes':
      warnings.push({ pointer, message: 'array_includes became contains (a text search in the array’s JSON)' });
      return cond(target, invert ? 'not_contains' : 'contains', key, value);
    default:
      return warn(`the operator ${String(rule.operator)} has no Mockyard condition`);
  }
}

/**
 * What tells one captured request from another on the same route (HAR entries, recordings): its
 * query parameters (`query equals`, the first of each name) and its body (`body_json equals` per
 * field for a JSON body of up to 20 fields, else `body equals`).
 */
export function variantConditions(rawQuery: string, body: string): Condition[] {
  const conditions: Condition[] = [];
  const seen = new Set<string>();
  for (const [k, v] of new URLSearchParams(rawQuery)) {
    if (seen.has(k)) continue;
    seen.add(k);
    conditions.push(cond('query', 'equals', k, v));
  }
  if (body !== '') {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const leaves = isObject(json) || Array.isArray(json) ? jsonLeaves(json) : [];
    if (leaves.length > 0 && leaves.length <= 20)
      conditions.push(...leaves.map(([p, v]) => cond('body_json', 'equals', p, v)));
    else conditions.push(cond('body', 'equals', undefined, body));
  }
  return conditions;
}
