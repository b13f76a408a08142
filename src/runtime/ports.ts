/**
 * What the mock runtime needs from the store — and nothing else: the runtime never imports the
 * concrete Store class, so it can be driven by any implementation (tests pass small fakes).
 */
import type { CollectionCommand, CollectionRef, CollectionResult } from '../domain/collections.js';
import type { StorageScope } from '../domain/constants.js';
import type { Collection, Endpoint, Project, RequestLogEntry, RuleRecord } from '../domain/model.js';
import type { ProxiedAnswer } from './proxy.js';

/** A project's configuration as the runtime compiles it (the store loads it: store/mock-config.ts). */
export interface ProjectConfig {
  project: Project;
  version: number;
  endpoints: Endpoint[];
  rules: RuleRecord[];
  collections: Collection[];
  /** the project's OpenAPI contract, resolved, as JSON text (docs/contract.md); null: none */
  contract?: { format: string; resolved: string } | null;
}

/** Who hears a result that is not ready in this turn (a hit count committed with the turn's writes). */
export interface Waiter<T> {
  resolve(v: T): void;
  reject(e: unknown): void;
}

/** The engine's view: configuration by id or mock host, hot state, change events, session forgetting. */
export interface RuntimeStore {
  on(event: 'change', listener: (projectId: string) => void): unknown;
  readonly hot: HotState;
  readonly mockConfig: { load(projectId: string): Promise<ProjectConfig | null> };
  readonly projects: { idBySlug(slug: string): Promise<string | null> };
  readonly mockSessions: { forget(projectId: string, session: string): Promise<void> };
}

/** The request log's view: writing batches, trimming, and reading back. */
export interface LogStore {
  readonly hot: Pick<HotState, 'appendLog'>;
  readonly logs: {
    trim(projectId: string, keep: number): Promise<void>;
    list(ownerId: string, projectId: string, limit: number): Promise<(RequestLogEntry & { seq: number })[]>;
    since(
      afterSeq: number,
      limit: number,
      alsoSeqs?: number[],
    ): Promise<{ seq: number; projectId: string; entry: RequestLogEntry }[]>;
    maxSeq(): Promise<number>;
    /** all of the project's entries, or those with these sequence numbers */
    clear(ownerId: string, projectId: string, seqs?: number[]): Promise<void>;
  };
}

/** Whose stored values: an endpoint's or a project's (docs/stateful-mocks.md). */
export interface StorageOwner {
  readonly kind: StorageScope;
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
  /** `updateStorage` without a promise: the storage after the write (or the failure) is handed to `waiter`, later. */
  updateStorageInto(
    owner: StorageOwner,
    session: string,
    write: StorageWrite,
    waiter: Waiter<Map<string, string>>,
  ): void;
  /**
   * Runs a collection command for one session (docs/stateful-mocks.md) under the lock of (project,
   * collection, session): the session's copy is made from the seed on first use.
   */
  collection(ref: CollectionRef, cmd: CollectionCommand): Promise<CollectionResult>;
  /** `collection` without a promise: the result (or the failure) is handed to `waiter`, later. */
  collectionInto(ref: CollectionRef, cmd: CollectionCommand, waiter: Waiter<CollectionResult>): void;
  /** Writes a batch of request-log entries; entries of a project deleted meanwhile are dropped. */
  appendLog(rows: LogRow[]): void | Promise<void>;
}

/** One exchange proxied in record mode, handed to the recorder (src/interop/recorder.ts). */
export interface Recording {
  projectId: string;
  method: string;
  path: string;
  rawQuery: string;
  requestBody: string;
  answer: ProxiedAnswer;
}

/** Record mode's writer: a management write, kept off the hot path (it runs after the answer). */
export interface Recorder {
  /** queues the exchange; resolves with a warning for the log entry when it will not be recorded */
  record(r: Recording): Promise<string | null>;
  /** resolves when every queued recording is written */
  settled(): Promise<void>;
}
