/**
 * Mockoon's response rules → conditions (docs/interop.md): body, query, header, cookie, route
 * parameter, path and method rules read the request; a rule on a data bucket reads a value fixed
 * when Mockoon starts, so its outcome is decided at import.
 */
import type { Condition } from '../domain/model.js';
import { cond, mockoonCondition, quoteRegex } from './matchers.js';
import { type Buckets, globalVar } from './mockoon-data.js';
import { jsonPathToDots } from './templates.js';
import type { ImportWarning, Json } from './types.js';

export interface Env {
  doc: Json;
  warnings: ImportWarning[];
  buckets: Buckets;
  callbacks: Map<string, Json>;
  headers: Record<string, string>;
  latency: number;
}

/** A condition, or what a rule on a fixed value always gives (true, false), or null: no condition. */
export type Test = Condition | boolean | null;

/** Mockoon's comparison of a value read at import (a data bucket's) with a rule: true or false. */
function fixedTest(v: unknown, r: Json): boolean {
  const value = r.value === undefined || r.value === null ? '' : String(r.value);
  const text = (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x));
  let ok: boolean;
  switch (r.operator ?? 'equals') {
    case 'equals':
      ok = Array.isArray(v) ? v.some((x) => text(x) === value) : v !== undefined && text(v) === value;
      break;
    case 'regex':
    case 'regex_i':
      try {
        ok = new RegExp(value, r.operator === 'regex_i' ? 'i' : '').test(text(v));
      } catch {
        ok = false;
      }
      break;
    case 'null':
      ok = v === null || v === undefined;
      break;
    case 'empty_array':
      ok = Array.isArray(v) && v.length === 0;
      break;
    case 'array_includes':
      ok = Array.isArray(v) && v.some((x) => text(x) === value);
      break;
    default:
      ok = false;
  }
  return r.invert === true ? !ok : ok;
}

export function conditionOf(r: Json, at: string, pattern: string, env: Env): Test {
  const modifier = typeof r.modifier === 'string' ? r.modifier : '';
  const warnings = env.warnings;
  switch (r.target) {
    case 'global_var':
      // a global variable is a project variable here (mockoon-data.ts)
      if (modifier === '' || modifier.includes('.')) break;
      return mockoonCondition('project', globalVar(modifier), r, at, warnings);
    case 'data_bucket': {
      // a bucket is fixed when the server starts: the rule's outcome is known at import
      const parts = modifier.split('.');
      if (parts[0].startsWith('$')) parts.shift();
      const read = env.buckets.read(parts[0] ?? '', parts.slice(1).join('.'), at);
      if (!read.found) break;
      return fixedTest(read.value, r);
    }
    case 'body': {
      if (modifier === '') return mockoonCondition('body', undefined, r, at, warnings);
      const key = modifier.startsWith('$') ? jsonPathToDots(modifier) : modifier;
      if (key === null) {
        warnings.push({
          pointer: at,
          message: `the JSON path ${modifier} has no condition; the rule is imported inactive`,
        });
        return null;
      }
      return mockoonCondition('body_json', key, r, at, warnings);
    }
    case 'query':
      return mockoonCondition('query', modifier, r, at, warnings);
    case 'header':
      return mockoonCondition('header', modifier.toLowerCase(), r, at, warnings);
    case 'method':
      return mockoonCondition('method', undefined, { ...r, value: String(r.value ?? '').toUpperCase() }, at, warnings);
    case 'path':
      return mockoonCondition('path', undefined, r, at, warnings);
    case 'cookie': {
      if ((r.operator ?? 'equals') !== 'equals') break;
      warnings.push({ pointer: at, message: 'a cookie rule became a search for NAME=VALUE in the Cookie header' });
      return cond(
        'header',
        r.invert === true ? 'not_contains' : 'contains',
        'cookie',
        `${modifier}=${String(r.value ?? '')}`,
      );
    }
    case 'params': {
      if ((r.operator ?? 'equals') !== 'equals' || r.invert === true) break;
      const segs = pattern.split('/').slice(1);
      if (!segs.includes(`:${modifier}`)) break;
      const re = segs
        .map((s) =>
          s === `:${modifier}`
            ? quoteRegex(String(r.value ?? ''))
            : s.startsWith(':')
              ? '[^/]+'
              : s === '*'
                ? '.*'
                : quoteRegex(decodeURIComponent(s)),
        )
        .join('/');
      return cond('path', 'matches_regex', undefined, `^/${re}$`);
    }
  }
  warnings.push({
    pointer: at,
    message: `a rule on ${String(r.target)} has no Mockyard condition; the rule is imported inactive`,
  });
  return null;
}
