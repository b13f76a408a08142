/**
 * A HAR 1.2 capture → endpoints (docs/interop.md). Entries are grouped by method and path (hosts are
 * merged, with a warning); within a path, entries that differ by query or body become rules matching
 * that query (`query equals`) and body (`body_json equals` per field, else `body equals`), the most
 * specific first; the same request captured several times answers its captured responses in turn
 * and then holds the last (a `hold_last` sequence). A plain last group is the endpoint's answer.
 */
import type { Condition, Step } from '../domain/model.js';
import { variantConditions } from './matchers.js';
import { patternOf, RouteBook } from './route-book.js';
import { verbatim } from './templates.js';
import {
  CAPTURE_DROPPED_HEADERS,
  type Converted,
  emptyConverted,
  isObject,
  type Json,
  sniffContentType,
  stepOf,
  takeContentType,
} from './types.js';

export function isHar(doc: unknown): boolean {
  return isObject(doc) && isObject(doc.log) && Array.isArray(doc.log.entries);
}

interface Group {
  conditions: Condition[];
  steps: Step[];
  pointer: string;
  key: string;
}

function responseStep(res: Json, at: string, out: Converted): Step | null {
  const status = Number(res.status);
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    out.warnings.push({
      pointer: res.status === undefined ? `${at}/response` : `${at}/response/status`,
      message: `status ${String(res.status)} (an aborted request?) is not imported`,
    });
    return null;
  }
  const headers: Record<string, string> = {};
  for (const h of Array.isArray(res.headers) ? res.headers : []) {
    if (!isObject(h) || typeof h.name !== 'string' || h.name.startsWith(':')) continue;
    if (CAPTURE_DROPPED_HEADERS.has(h.name.toLowerCase())) continue;
    headers[h.name] =
      headers[h.name] !== undefined ? `${headers[h.name]}, ${String(h.value ?? '')}` : String(h.value ?? '');
  }
  const content = isObject(res.content) ? res.content : {};
  let body = typeof content.text === 'string' ? content.text : '';
  if (content.encoding === 'base64') {
    const bytes = Buffer.from(body, 'base64');
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) body = text;
    else {
      out.warnings.push({
        pointer: `${at}/response/content`,
        message: 'a binary body cannot be a Mockyard body; the answer is empty',
      });
      body = '';
    }
  }
  const type =
    takeContentType(headers) ??
    (typeof content.mimeType === 'string' && content.mimeType !== '' ? content.mimeType : sniffContentType(body));
  // a recorded answer is served as it was recorded: `{{` in it is text, not a template
  return stepOf({ statusCode: status, body: verbatim(body), headers: { 'content-type': type, ...headers } });
}

/** A HAR log → drafts (call `isHar` first). */
export function convertHar(doc: Json): Converted {
  const out = emptyConverted('har');
  const entries = (doc.log as Json).entries as unknown[];
  const book = new RouteBook(out);
  const groups = new Map<string, Group[]>();
  const order: { ep: NonNullable<ReturnType<RouteBook['endpoint']>>; key: string }[] = [];
  let firstHost: string | null = null;
  const otherHosts = new Set<string>();
  entries.forEach((entry, i) => {
    const at = `/log/entries/${i}`;
    if (!isObject(entry) || !isObject(entry.request) || !isObject(entry.response)) {
      out.warnings.push({ pointer: at, message: 'an entry without request and response is not imported' });
      return;
    }
    let url: URL;
    try {
      url = new URL(String(entry.request.url));
    } catch {
      out.warnings.push({ pointer: `${at}/request/url`, message: 'not an absolute URL; not imported' });
      return;
    }
    firstHost ??= url.host;
    if (url.host !== firstHost && !otherHosts.has(url.host)) {
      otherHosts.add(url.host);
      out.warnings.push({
        pointer: `${at}/request/url`,
        message: `entries of ${url.host} are merged by path with those of ${firstHost}`,
      });
    }
    const step = responseStep(entry.response, at, out);
    if (!step) return;
    const ep = book.endpoint(String(entry.request.method ?? 'GET'), patternOf(url.pathname, { params: false }), at);
    if (!ep) return;
    const routeKey = `${ep.method} ${ep.path}`;
    let list = groups.get(routeKey);
    if (!list) {
      list = [];
      groups.set(routeKey, list);
      order.push({ ep, key: routeKey });
    }
    const post = isObject(entry.request.postData) ? entry.request.postData : {};
    const conditions = variantConditions(url.search.slice(1), typeof post.text === 'string' ? post.text : '');
    const key = JSON.stringify(conditions);
    const group = list.find((g) => g.key === key);
    const last = group?.steps[group.steps.length - 1];
    if (group && last && JSON.stringify(last) === JSON.stringify(step)) last.count = 1;
    else if (group) group.steps.push(step);
    else list.push({ conditions, steps: [step], pointer: at, key });
  });
  for (const { ep, key } of order) {
    const list = (groups.get(key) ?? []).sort((a, b) => b.conditions.length - a.conditions.length);
    for (const g of list)
      book.addRule(ep, {
        name:
          g.conditions.length === 0
            ? `${ep.method} ${ep.path}`
            : g.conditions
                .map((c) => `${c.key ?? c.target}=${c.value ?? ''}`)
                .join(' ')
                .slice(0, 100),
        conditions: g.conditions,
        response: { mode: 'hold_last', steps: g.steps },
        actions: [],
        pointer: g.pointer,
      });
  }
  book.finish();
  return out;
}
