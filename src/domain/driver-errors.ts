/**
 * Driver errors classified once, for both databases: a unique violation (a `409 conflict`), and a
 * database that does not answer (a `503 unavailable`, never a 500).
 */

export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return (
    err?.code === '23505' || err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(err?.message ?? '')
  );
}

/** Codes of a database (or its connection) that is down, restarting, locked or out of connections. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'SQLITE_BUSY',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '53300',
]);

const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not currently accepting connections|database is locked/i;

export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (!e) return false;
  return UNAVAILABLE_CODES.has(e.code ?? '') || UNAVAILABLE_MESSAGE.test(e.message ?? '');
}
