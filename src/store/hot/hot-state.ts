/**
 * The mock hot path's writes and reads of state — hit counters, storage, the request log — behind
 * one interface with a SQLite and a PostgreSQL implementation (sqlite.ts, postgres.ts). The interface
 * is the runtime's port (src/runtime/ports.ts): the store implements what the runtime declares.
 */
export type { HotState, LogRow, StorageOwner, StorageWrite } from '../../runtime/ports.js';

/**
 * How the hot state reports a failure it recovers from by itself (nothing lost, nothing answered
 * wrong), so the process can log it: the store emits it as `'problem'` (server.ts logs a warning).
 */
export type ProblemReport = (where: string, err: unknown) => void;
