/** A rule's actions, compiled once (templates of URLs, headers, bodies and values). */
import type { Action } from '../domain/model.js';
import type { CompiledAction } from './compile.js';
import { compileTemplate } from './template.js';

export function compileActions(list: readonly Action[], sources: string[]): CompiledAction[] {
  return list.map((a) => {
    const stop = a.onError === 'stop';
    if (a.type === 'http_request') {
      sources.push(a.url, a.body, ...Object.values(a.headers));
      return {
        type: a.type,
        url: compileTemplate(a.url),
        method: a.method,
        headers: Object.entries(a.headers).map(([k, v]) => [k, compileTemplate(v)] as const),
        body: compileTemplate(a.body),
        applyResponse: a.applyResponse,
        timeoutMs: a.timeoutMs,
        saveAs: a.saveAs ?? null,
        stop,
      };
    }
    if (a.type === 'delete_variable') return { type: a.type, name: a.name, scope: a.scope ?? 'endpoint', stop };
    if (a.type === 'broadcast') {
      sources.push(a.body);
      return { type: a.type, channel: a.channel, body: compileTemplate(a.body), stop };
    }
    sources.push(a.value);
    return a.type === 'set_variable'
      ? { type: a.type, name: a.name, value: compileTemplate(a.value), stop }
      : { type: a.type, name: a.name, value: compileTemplate(a.value), scope: a.scope ?? 'endpoint', stop };
  });
}
