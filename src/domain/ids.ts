import { randomBytes } from 'node:crypto';

/** An opaque record id: 16 random bytes, URL-safe (22 characters). */
export const newId = (): string => randomBytes(16).toString('base64url');

/**
 * A project's mock-host label (SECURITY.md): its name in lower-case letters, digits and dashes (at
 * most 40), then 6 random base-36 characters — `Shop API` → `shop-api-k3x9q2`.
 */
export function newSlug(name: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const bytes = randomBytes(6);
  let tail = '';
  for (const b of bytes) tail += (b % 36).toString(36);
  return `${base || 'project'}-${tail}`;
}

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
