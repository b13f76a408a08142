/**
 * One socket's events (docs/websocket.md): connect, each message, close — run through the engine in
 * order, answered in the turn they arrive in unless something waits.
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { RuleTrace } from '../../domain/model.js';
import type { Trigger } from '../../domain/sockets.js';
import type { CompiledEndpoint, CompiledProject, CompiledStep } from '../compile.js';
import { MockContext, MockRequestView } from '../context.js';
import type { Evaluation } from '../engine.js';
import { CapExceeded } from '../template.js';
import type { WsDeps } from './handler.js';
import type { LiveSocket } from './hub.js';

/** The endpoint with only the rules of one trigger (made once per endpoint and trigger). */
const byTrigger = new WeakMap<CompiledEndpoint, Map<Trigger, CompiledEndpoint>>();
function endpointFor(ep: CompiledEndpoint, t: Trigger): CompiledEndpoint {
  let m = byTrigger.get(ep);
  if (!m) {
    m = new Map();
    byTrigger.set(ep, m);
  }
  let out = m.get(t);
  if (!out) {
    out = { ...ep, rules: ep.rules.filter((r) => r.on === t), waits: 'steps' };
    m.set(t, out);
  }
  return out;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface SocketScope {
  ws: WebSocket;
  req: IncomingMessage;
  path: string;
  query: string;
  project: CompiledProject;
  ep: CompiledEndpoint;
  params: Record<string, string>;
  session: string;
  seed: string | null;
  live: LiveSocket;
  entry: LogEntryFn;
  deps: WsDeps;
}

/** Records one event of the socket in the request log (handler.ts). */
export type LogEntryFn = (
  event: Trigger,
  direction: 'in' | 'out',
  body: string,
  rules: RuleTrace[],
  ruleId: string | null,
  started: number,
) => void;

/** The function that runs one event of the socket. */
export function socketEvents(c: SocketScope): (trigger: Trigger, message?: string) => void {
  const { ws, req, path, query, project, ep, params, session, seed, live, entry, deps } = c;
  const { engine, log } = deps;
  /**
   * Runs the trigger's rules; sends what the answering step says. Events are handled in order: while
   * one waits (a counter on PostgreSQL, a webhook, a delay), the next ones queue behind it; otherwise
   * an event is answered in the turn it arrived in, with no promise.
   */
  const waiting: [Trigger, string | undefined][] = [];
  let busy = false;
  const failed = (err: unknown) => log.warn({ err }, 'websocket rule failed');
  const drain = () => {
    busy = false;
    while (!busy && waiting.length > 0) {
      const [t, m] = waiting.shift() as [Trigger, string | undefined];
      handle(t, m);
    }
  };
  const run = (trigger: Trigger, message?: string) => {
    if (busy) waiting.push([trigger, message]);
    else handle(trigger, message);
  };
  const handle = (trigger: Trigger, message?: string): void => {
    const started = performance.now();
    const view = new MockRequestView('GET', path, query, req.headers, req.rawHeaders);
    view.params = params;
    view.body = message ?? '';
    const ctx = new MockContext(view, seed, Math.random, deps.renderLimit);
    ctx.config = project.config;
    ctx.iterationLimit = deps.iterationLimit;
    if (message !== undefined) {
      let parsed: { v: unknown } | null = null;
      ctx.message = {
        text: message,
        json: () => {
          if (parsed === null) {
            try {
              parsed = { v: JSON.parse(message) };
            } catch {
              parsed = { v: undefined };
            }
          }
          return parsed.v;
        },
      };
    }
    const answered = (ev: Evaluation): void | Promise<void> => {
      const out = ev.outcome;
      const ruleId = out.kind === 'step' || out.kind === 'applied' ? out.ruleId : null;
      entry(trigger, 'in', message ?? '', ev.rules, ruleId, started);
      if (trigger === 'close') return;
      if (out.kind === 'applied') return live.send(out.body);
      if (out.kind === 'step') return sendStep(out.step, ctx);
    };
    const later = {
      resolve: (e: Evaluation) => {
        Promise.resolve()
          .then(() => answered(e))
          .catch(failed)
          .finally(drain);
      },
      reject: (err: unknown) => {
        failed(err);
        drain();
      },
    };
    let ev: Evaluation | null;
    try {
      const evaluating = {
        projectId: project.id,
        collections: project.collections,
        ep: endpointFor(ep, trigger),
        ctx,
        session,
        hops: 0,
      };
      ev = engine.run(evaluating, later);
    } catch (err) {
      failed(err);
      return;
    }
    if (ev === null) {
      busy = true;
      return;
    }
    try {
      const done = answered(ev);
      if (done instanceof Promise) {
        busy = true;
        done.catch(failed).finally(drain);
      }
    } catch (err) {
      failed(err);
    }
  };
  /** Sends a step's messages; a promise only when one of them waits. */
  const sendStep = (step: CompiledStep, ctx: MockContext): void | Promise<void> => {
    const finish = () => {
      if (step.close) ws.close(step.close.code, step.close.reason);
    };
    const render = (t: (c: MockContext) => string): string | null => {
      try {
        return t(ctx);
      } catch (err) {
        if (!(err instanceof CapExceeded)) throw err;
        ws.close(1011, 'render_too_large');
        return null;
      }
    };
    const waits = step.delayMs > 0 || (step.messages?.some((m) => m.delayMs > 0) ?? false);
    if (!waits) {
      if (step.messages) {
        for (const m of step.messages) {
          const text = render(m.body);
          if (text === null) return;
          live.send(text);
        }
      } else {
        const body = render(step.body);
        if (body === null) return;
        if (body !== '' || !step.close) live.send(body);
      }
      return finish();
    }
    return (async () => {
      if (step.delayMs > 0) await sleep(step.delayMs);
      if (step.messages) {
        for (const m of step.messages) {
          if (m.delayMs > 0) await sleep(m.delayMs);
          const text = render(m.body);
          if (text === null) return;
          live.send(text);
        }
      } else {
        const body = render(step.body);
        if (body === null) return;
        if (body !== '' || !step.close) live.send(body);
      }
      finish();
    })();
  };

  return run;
}
