/**
 * Time-ordered UUIDs (RFC 9562, version 7) for the items a collection creates: the first 48 bits
 * are the creation time in milliseconds, the next 12 a counter within the millisecond (method 1 of
 * the RFC's section 6.2), the last 62 random (from a buffer of entropy filled 4 KiB at a time). Ids
 * made by one process sort in the order they were made, even when the clock steps back, so a
 * session's new items land at the end of its part of the items' index — one B-tree page that stays
 * in SQLite's cache, where random (version 4) ids touched a different page a create, read back from
 * the OS and split in the middle (docs/architecture.md, "Decisions").
 *
 * An id is spelled as bytes and read as one flat string: built from `randomUUID`'s text it cost
 * ~3,000 instructions a create under callgrind (S8) — node joins that text a character pair at a
 * time, and the id, joined again, was flattened once more when the item was serialized.
 */
import { randomFillSync } from 'node:crypto';

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;
/** the id being spelled; the time's 13 characters (`xxxxxxxx-xxxx-`) written once a millisecond */
const id = Buffer.alloc(36);
/** the 8 random bytes an id takes, 512 ids' worth */
const entropy = Buffer.allocUnsafeSlow(4096);
let used = entropy.length;
/** where each random byte's two hex digits go (the 4th group's first is the variant's, below) */
const RANDOM_AT = [19, 21, 24, 26, 28, 30, 32, 34];

let lastMs = 0;
let counter = 0;

/** Writes `value`'s low `digits` hex digits (at most 8) at `at`. */
function hexAt(at: number, value: number, digits: number): void {
  let v = value;
  for (let i = at + digits - 1; i >= at; i--) {
    id[i] = HEX[v & 15];
    v >>>= 4;
  }
}

function setMs(ms: number): void {
  lastMs = ms;
  counter = 0;
  // 48 bits: the top 32 (characters 0–7) and the low 16 (9–12)
  hexAt(0, Math.floor(ms / 0x10000), 8);
  id[8] = DASH;
  hexAt(9, ms % 0x10000, 4);
  id[13] = DASH;
}

/** A new version-7 UUID, later in order than every one this process made before. */
export function uuid7(now = Date.now()): string {
  if (now > lastMs) setMs(now);
  // 4096 ids in one millisecond (or a clock that stepped back): borrow the next millisecond
  else if (++counter > 0xfff) setMs(lastMs + 1);
  id[14] = 0x37; // the version, 7
  hexAt(15, counter, 3);
  id[18] = DASH;
  if (used + 8 > entropy.length) {
    randomFillSync(entropy);
    used = 0;
  }
  for (let k = 0; k < 8; k++) hexAt(RANDOM_AT[k], entropy[used + k], 2);
  // the variant (binary 10) over the first byte's top two bits: 62 random bits are left
  id[19] = HEX[8 | ((entropy[used] >>> 4) & 3)];
  used += 8;
  id[23] = DASH;
  return id.toString('latin1', 0, 36);
}
