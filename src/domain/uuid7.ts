/**
 * Time-ordered UUIDs (RFC 9562, version 7) for the items a collection creates: the first 48 bits
 * are the creation time in milliseconds, the next 12 a counter within the millisecond (method 1 of
 * the RFC's section 6.2), the last 62 random (from `randomUUID`'s buffered entropy). Ids made by one
 * process sort in the order they were made, even when the clock steps back, so a session's new items
 * land at the end of its part of the items' index — one B-tree page that stays in SQLite's cache,
 * where random (version 4) ids touched a different page a create, read back from the OS and split
 * in the middle (docs/architecture.md, "Decisions").
 */
import { randomUUID } from 'node:crypto';

let lastMs = 0;
let counter = 0;
/** `lastMs` spelled as the id's first 13 characters (`xxxxxxxx-xxxx-`), made once a millisecond */
let prefix = '';

function setMs(ms: number): void {
  lastMs = ms;
  counter = 0;
  const hex = ms.toString(16).padStart(12, '0');
  prefix = `${hex.slice(0, 8)}-${hex.slice(8)}-`;
}

/** A new version-7 UUID, later in order than every one this process made before. */
export function uuid7(now = Date.now()): string {
  if (now > lastMs) setMs(now);
  // 4096 ids in one millisecond (or a clock that stepped back): borrow the next millisecond
  else if (++counter > 0xfff) setMs(lastMs + 1);
  // randomUUID: xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; from V on it is the variant and 62 random bits
  return `${prefix}7${counter.toString(16).padStart(3, '0')}-${randomUUID().slice(19)}`;
}
