/**
 * The collection copies SqliteCollections knows (sqlite-collections.ts, its header), by project,
 * collection and session: maps within maps, looked up by the strings a command was given. The
 * project's id and the collection's name live as long as their endpoint, and V8 keeps a string's
 * hash once computed, so only the session's name is hashed per command. A key joined per command
 * (~60 characters) was flattened and hashed every time: ~2,000 instructions a create under callgrind
 * (S8), and two names with a NUL in them could have met in one key.
 */
export class KnownCopies<T> {
  private readonly byProject = new Map<string, Map<string, Map<string, T>>>();
  private count = 0;

  /** `max` copies are kept at most: past it, the oldest of the first collection known goes. */
  constructor(private readonly max: number) {}

  get size(): number {
    return this.count;
  }

  get(projectId: string, name: string, session: string): T | undefined {
    return this.byProject.get(projectId)?.get(name)?.get(session);
  }

  set(projectId: string, name: string, session: string, copy: T): void {
    if (this.get(projectId, name, session) === undefined) {
      if (this.count >= this.max) this.dropOldest();
      this.count++;
    }
    let byName = this.byProject.get(projectId);
    if (byName === undefined) {
      byName = new Map();
      this.byProject.set(projectId, byName);
    }
    let bySession = byName.get(name);
    if (bySession === undefined) {
      bySession = new Map();
      byName.set(name, bySession);
    }
    bySession.set(session, copy);
  }

  clear(): void {
    this.byProject.clear();
    this.count = 0;
  }

  /** Drops the first session known of the first collection known (maps keep their insertion order; none is left empty). */
  private dropOldest(): void {
    const first = this.byProject.entries().next();
    if (first.done) return;
    const [projectId, byName] = first.value;
    const [name, bySession] = byName.entries().next().value as [string, Map<string, T>];
    bySession.delete(bySession.keys().next().value as string);
    this.count--;
    if (bySession.size === 0) byName.delete(name);
    if (byName.size === 0) this.byProject.delete(projectId);
  }
}
