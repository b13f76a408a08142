/**
 * The writes asked of one storage (owner and session) in one transaction, applied in the order
 * asked: both dialects gather them (sqlite.ts per turn, postgres.ts per round trip) and store only
 * the last value of each name they changed — one read and one upsert per name, however many
 * requests wrote.
 */
import { toError } from './group-commit.js';
import type { StorageWrite } from './hot-state.js';

export interface AppliedWrites {
  /** each write's storage after it (a copy), or the error it threw: a write that throws stores nothing */
  readonly out: (Map<string, string> | Error)[];
  /** the names changed, each with its last value (null: deleted) */
  readonly changed: Map<string, string | null>;
}

/** Applies `batch` to `current` (which it changes). */
export function applyStorageWrites(current: Map<string, string>, batch: readonly StorageWrite[]): AppliedWrites {
  const changed = new Map<string, string | null>();
  const out: (Map<string, string> | Error)[] = [];
  for (const write of batch) {
    let writes: [string, string | null][];
    try {
      writes = write(current);
    } catch (err) {
      out.push(toError(err));
      continue;
    }
    for (const [name, value] of writes) {
      if (value === null) current.delete(name);
      else current.set(name, value);
      changed.set(name, value);
    }
    out.push(new Map(current));
  }
  return { out, changed };
}
