import { randomBytes } from 'node:crypto';

/** An opaque record id: 16 random bytes, URL-safe (22 characters). */
export const newId = (): string => randomBytes(16).toString('base64url');

/** Current time as the ISO 8601 UTC string records carry. */
export const nowIso = (): string => new Date().toISOString();
