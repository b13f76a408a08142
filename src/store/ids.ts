import { randomBytes } from 'node:crypto';

/** An opaque record id: 16 random bytes, URL-safe (22 characters). */
export const newId = (): string => randomBytes(16).toString('base64url');

/** Current time as the ISO 8601 UTC string records carry. */
export const nowIso = (): string => new Date().toISOString();

const prefix = randomBytes(6).toString('base64url');
let counter = 0;

/**
 * Cheap unique ids for high-volume records (request-log entries): a random per-process prefix and
 * a counter. Unique across processes, not secret. `nextSeq` takes a number (no allocation on the
 * hot path); `seqId` spells it, when the record is kept.
 */
export const nextSeq = (): number => counter++;
export const seqId = (seq: number): string => `${prefix}${seq.toString(36)}`;
