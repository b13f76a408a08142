/**
 * The request log ring's bytes (request-log-ring.ts): where a place's text is copied, and how.
 */

/**
 * Writes a latin1 string (node's parser makes one byte per character of the URL and header lines)
 * at `o`; a plain loop beats the native call for the short strings of a request.
 */
function putLatin1(b: Buffer, s: string, o: number): number {
  const n = s.length;
  if (n > 64) return b.write(s, o, 'latin1');
  for (let i = 0; i < n; i++) b[o + i] = s.charCodeAt(i);
  return n;
}

/** UTF-8 bytes of `s`: an upper bound for a short one (no scan), exact for a longer one. */
export const utf8Bytes = (s: string): number => (s.length * 3 <= 256 ? s.length * 3 : Buffer.byteLength(s, 'utf8'));

/** Bytes of a slab the places' own buffers are cut from (see Slabs). */
export const SLAB = 256 * 1024;

/**
 * Where a ring's places get their own buffers: cut from 256 KiB slabs of its own, past malloc's
 * mmap threshold (128 KiB), so a slab goes back to the system when the ring is gone. A ring lives
 * one flush interval, and its 1,000 buffers of 3–4 KiB malloc'd one by one (S3b's 2.8 KB answers)
 * left the C heap fragmented after it: 16 MB of RSS never given back. Unpooled as well: a slice of
 * node's shared 8 KiB pool would keep that pool's slab alive.
 */
export class Slabs {
  private slab: Buffer | null = null;
  private used = 0;

  take(n: number): Buffer {
    if (n > SLAB / 4) return Buffer.allocUnsafeSlow(n);
    if (this.slab === null || this.used + n > SLAB) {
      this.slab = Buffer.allocUnsafeSlow(SLAB);
      this.used = 0;
    }
    const b = this.slab.subarray(this.used, this.used + n);
    this.used += n;
    return b;
  }
}

/**
 * A place's own buffer for `need` bytes (text past its arena region): the one it has when that
 * fits and is not far too big (so a place that once held a big entry does not keep it), else a
 * new one from the ring's slabs.
 */
export function fitted(b: Buffer | null, need: number, slabs: Slabs): Buffer {
  if (b !== null && b.length >= need && (b.length <= 1024 || b.length <= 4 * need)) return b;
  return slabs.take(need <= 256 ? 256 : Math.ceil(need / 1024) * 1024);
}

/**
 * Writes a string as UTF-8 at `o`: a short ASCII one (a mock session's name) in a plain loop,
 * anything else through the native call, which costs ~1,000 instructions to start and then little
 * a character, where the loop costs ~30 (callgrind, S8: a 100-character answer cost more looped).
 */
function putUtf8(b: Buffer, s: string, o: number): number {
  const n = s.length;
  if (n > 24) return b.write(s, o, 'utf8');
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return b.write(s, o, 'utf8');
    b[o + i] = c;
  }
  return n;
}

/** Writes `s` behind its byte length at `o`; the offset after it. */
export function putString(b: Buffer, s: string, o: number, utf8: boolean): number {
  const n = s.length === 0 ? 0 : utf8 ? putUtf8(b, s, o + 4) : putLatin1(b, s, o + 4);
  putLength(b, n, o);
  return o + 4 + n;
}

/** Writes bytes behind their length at `o` (a body as received: no string encoded again); the offset after them. */
export function putBytes(b: Buffer, bytes: Buffer, o: number): number {
  b.set(bytes, o + 4);
  putLength(b, bytes.length, o);
  return o + 4 + bytes.length;
}

/** A length (or SHARED) as 4 bytes, little-endian, as `readUInt32LE` reads it; the offset after
 * it. Plain stores: the checked `writeUInt32LE` costs more, six times a request. */
export function putLength(b: Buffer, n: number, o: number): number {
  b[o] = n & 0xff;
  b[o + 1] = (n >>> 8) & 0xff;
  b[o + 2] = (n >>> 16) & 0xff;
  b[o + 3] = n >>> 24;
  return o + 4;
}
