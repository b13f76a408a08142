/**
 * The mock hot path's writes and reads of state — hit counters, storage, the request log — behind
 * one interface with a SQLite and a PostgreSQL implementation (sqlite.ts, postgres.ts). Methods
 * take no owner: the mock URL is public, and they are keyed by ids the runtime got from the
 * project's compiled snapshot.
 */
import type { RequestLogEntry } from '../../domain/model.js';
import type { CollectionCommand, CollectionRef, CollectionResult } from './collections.js';
import type { Waiter } from './group-commit.js';
import type { StorageKind } from './statements.js';

/** Whose stored values: an endpoint's or a project's (docs/stateful-mocks.md). */
export interface StorageOwner {
  readonly kind: StorageKind;
  readonly id: string;
}

/** Computes the writes from the current storage (run under its lock): a value, or null to delete. */
export type StorageWrite = (current: Map<string, string>) => [string, string | null][];

export interface LogRow {
  projectId: string;
  entry: RequestLogEntry;
}

export interface HotState {
  /**
   * Counts one more hit of a rule in a session and answers the new count: exact under any
   * concurrency and on any number of processes (the hits of one event-loop turn are added by one
   * statement, and the requests get consecutive counts in the order they asked).
   */
  hit(ruleId: string, session: string): Promise<number>;
  /** `hit` without a promise: the count (or the failure) is handed to `waiter`. */
  hitInto(ruleId: string, session: string, waiter: Waiter<number>): void;
  /** The owner's stored values in a session (synchronous on SQLite). */
  storage(owner: StorageOwner, session: string): Map<string, string> | Promise<Map<string, string>>;
  /**
   * Reads the owner's storage, lets `write` compute values from it, and stores (or deletes) them,
   * atomically with respect to every other writer of that storage (an append or counter pattern
   * loses nothing). Answers the storage after the write. A `write` that throws stores nothing.
   */
  updateStorage(owner: StorageOwner, session: string, write: StorageWrite): Promise<Map<string, string>>;
  /**
   * Runs a collection command for one session (docs/stateful-mocks.md) under the lock of (project,
   * collection, session): the session's copy is made from the seed on first use.
   */
  collection(ref: CollectionRef, cmd: CollectionCommand): Promise<CollectionResult>;
  /** Writes a batch of request-log entries; entries of a project deleted meanwhile are dropped. */
  appendLog(rows: LogRow[]): void | Promise<void>;
}
