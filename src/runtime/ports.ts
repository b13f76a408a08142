/**
 * What the mock runtime needs from the store — and nothing else: the runtime never imports the
 * concrete Store class, so it can be driven by any implementation (tests pass small fakes).
 */
import type { RequestLogEntry } from '../domain/model.js';
import type { Waiter } from '../store/hot/group-commit.js';
import type { HotState, StorageOwner } from '../store/hot/hot-state.js';
import type { ProjectConfig } from '../store/mock-config.js';

export type { HotState, ProjectConfig, StorageOwner, Waiter };

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
