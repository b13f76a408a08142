/**
 * An import worker's thread, as the operating system sees it (Linux; elsewhere every function here
 * answers null or does nothing, and the pool falls back to wall-clock budgets at normal priority).
 *
 * - The worker lowers its own thread's priority (`nice`): on a core the mocks keep busy, the
 *   scheduler gives it what they leave (at 19, about 1.5 % of a core against one busy thread).
 *   Linux keeps the nice value per thread, so `setpriority` on the calling thread leaves the main
 *   thread, and the mocks it serves, at theirs.
 * - The pool charges a document the CPU time its worker thread spent on it, read from
 *   `/proc/self/task/<tid>/stat`, not the wall time: a document that waits for a core behind the
 *   mocks is not "too complex".
 */
import fs from 'node:fs';
import os from 'node:os';

/** Clock ticks a second of `/proc/.../stat` (USER_HZ: 100 on every Linux architecture Node runs on). */
const TICKS_PER_S = 100;

/** The calling thread's id (Linux: `/proc/thread-self` reads `<pid>/task/<tid>`), or null. */
export function ownThreadId(): number | null {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** Sets the calling thread's nice value (0 leaves it); false when the system refuses or has none. */
export function lowerOwnPriority(nice: number): boolean {
  if (nice <= 0) return false;
  try {
    // pid 0 is the calling thread on Linux (the nice value is a per-thread attribute there)
    os.setPriority(0, Math.min(19, nice));
    return true;
  } catch {
    return false;
  }
}

/** The fields of a thread's stat line after its name (the name may hold spaces and parentheses). */
function statFields(tid: number, pid: number | 'self' = 'self'): string[] | null {
  try {
    const line = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
    return line.slice(line.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU time (user + system) the thread `tid` of this process has used, ms, or null when unreadable. */
export function threadCpuMs(tid: number | null): number | null {
  if (tid === null) return null;
  const f = statFields(tid);
  // after the name: state(0) … utime(11) stime(12), in clock ticks
  if (!f || f.length < 13) return null;
  const ticks = Number(f[11]) + Number(f[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_S : null;
}

/** The nice value of thread `tid` of process `pid` (this one by default), or null when unreadable (tests). */
export function threadNice(tid: number, pid: number | 'self' = 'self'): number | null {
  const f = statFields(tid, pid);
  // after the name: … priority(15) nice(16)
  return f && f.length > 16 ? Number(f[16]) : null;
}
