/**
 * A streaming step written (docs/streams.md): after the step's delay, its head, then its events,
 * chunks or LLM stream; resolves with the status when the stream has ended (the request log then
 * holds the first 64 KiB that were sent).
 */
import type { ServerResponse } from 'node:http';
import type { CompiledEndpoint, CompiledStep } from './compile.js';
import type { MockContext } from './context.js';
import { llmAnswer } from './llm.js';
import { type AnswerNote, type OutHeaders, stepHeaders } from './respond.js';
import { type CompiledStream, frame, StreamWriter, writeChunks, writeEvents } from './stream.js';

const SSE = 'text/event-stream; charset=utf-8';

/** The step's headers for a streamed answer (no length: chunked); `contentType` overrides the step's. */
function headersOf(step: CompiledStep, ep: CompiledEndpoint, ctx: MockContext, contentType: string | null): OutHeaders {
  const h = stepHeaders(step, ep, ctx, 0, contentType ?? undefined);
  delete h['content-length'];
  if (String(h['content-type'] ?? '').startsWith('text/event-stream')) {
    h['cache-control'] = 'no-cache';
    h['x-accel-buffering'] = 'no';
  }
  return h;
}

export async function streamStep(
  res: ServerResponse,
  ep: CompiledEndpoint,
  step: CompiledStep,
  stream: CompiledStream,
  ctx: MockContext,
  rng: () => number,
  note: AnswerNote,
): Promise<number> {
  const wait =
    step.delayMaxMs > step.delayMs
      ? step.delayMs + Math.floor(rng() * (step.delayMaxMs - step.delayMs + 1))
      : step.delayMs;
  note.sentStep = step;
  note.sentDelay = wait;
  // rendered before waiting, as a whole body is
  const llm = stream.kind === 'llm' ? llmAnswer(stream.llm, stream.text, ctx) : null;
  const body = stream.kind === 'chunks' ? step.body(ctx) : '';
  const w = new StreamWriter(res);
  if (wait > 0 && !(await w.sleep(wait))) return 0;
  if (!w.open) return 0;
  const status = step.statusCode < 200 ? 200 : step.statusCode;
  let headers: OutHeaders;
  if (llm?.kind === 'json') {
    headers = headersOf(step, ep, ctx, 'application/json');
    headers['content-length'] = Buffer.byteLength(llm.body);
    res.writeHead(status, headers);
    res.end(llm.body);
    note.sentHeaders = headers;
    note.sentBody = llm.body;
    return status;
  }
  headers = headersOf(step, ep, ctx, stream.kind === 'chunks' ? null : SSE);
  w.head(status, headers);
  note.sentHeaders = headers;
  try {
    if (stream.kind === 'events') await writeEvents(w, stream, ctx);
    else if (stream.kind === 'chunks') await writeChunks(w, stream, body);
    else if (llm?.kind === 'events') {
      for (const [i, e] of llm.events.entries()) {
        if (i > 0 && !(await w.sleep(llm.delayMs))) break;
        if (!(await w.write(frame(e)))) break;
        w.sent();
      }
      w.end();
    }
  } finally {
    note.sentBody = w.note.sent;
    note.sentEvents = w.note.events;
    if (w.note.times.length > 0) note.sentEventTimes = w.note.times;
  }
  return status;
}
