/**
 * The longest task of the page's main thread while `run` runs, from a Chromium trace: its thread
 * (CPU) time, which is what the page itself does, and its wall time, which also holds whatever
 * time the OS gave other processes meanwhile.
 *
 * A `longtask` observer sees wall time only. While other test files run on the same 2 cores the
 * renderer waits for a core now and then: CI read 146–309 ms of wall time for the flood's longest
 * task, where its tasks take 13–20 ms of thread time here (also with three busy loops beside it),
 * and wall times of 40–85 ms show on an otherwise idle machine. Every renderer's main thread counts,
 * so another page left open could only make the reading larger, never hide a long task of this one.
 * A trace without thread times (`tdur`) reads 0 ms: the caller checks that it read more.
 */
import type { Browser, Page } from 'playwright-core';

export interface LongestTask {
  /** thread (CPU) time of the task with the most, in ms */
  threadMs: number;
  /** wall time of that same task, in ms */
  wallMs: number;
  /** how many main-thread tasks the trace held (0 means the trace saw none: a broken probe) */
  tasks: number;
}

interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

export async function longestMainThreadTask(
  browser: Browser,
  page: Page,
  run: () => Promise<void>,
): Promise<LongestTask> {
  // 'toplevel' holds the scheduler's task events, each with its wall (dur) and thread (tdur) time in µs
  await browser.startTracing(page, { categories: ['toplevel'] });
  let trace: Buffer;
  try {
    await run();
  } finally {
    trace = await browser.stopTracing();
  }
  // Chromium's trace is an object: { traceEvents, metadata }
  const events: TraceEvent[] = JSON.parse(trace.toString()).traceEvents;
  const mains = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const tasks = events.filter(
    (e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && mains.has(`${e.pid}:${e.tid}`),
  );
  let longest: TraceEvent | undefined;
  for (const e of tasks) if (!longest || (e.tdur ?? 0) > (longest.tdur ?? 0)) longest = e;
  return {
    threadMs: Math.round((longest?.tdur ?? 0) / 100) / 10,
    wallMs: Math.round((longest?.dur ?? 0) / 100) / 10,
    tasks: tasks.length,
  };
}
