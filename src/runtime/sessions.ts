/**
 * Mock sessions (`X-Mockyard-Session`) remembered per project, least recently used first
 * (docs/limits.md). Past the cap the least recently used session of that project is forgotten: its
 * sequence positions and stored values are deleted (`forget`), so a client sending a new random
 * session id on every request cannot grow the state kept for a project without bound.
 *
 * This is the process's view: with several processes each one keeps its own order, and the
 * periodic sweep (`Store.trimSessions`) holds the database to the cap across all of them.
 */
export class SessionTracker {
  private readonly byProject = new Map<string, Map<string, true>>();

  constructor(
    private readonly cap: number,
    private readonly forget: (projectId: string, session: string) => void,
  ) {}

  /** The session was used now: it becomes the most recently used; the oldest past the cap is forgotten. */
  touch(projectId: string, session: string): void {
    let sessions = this.byProject.get(projectId);
    if (!sessions) {
      sessions = new Map();
      this.byProject.set(projectId, sessions);
    }
    // a Map keeps insertion order: delete and set moves the session to the end
    if (sessions.delete(session)) {
      sessions.set(session, true);
      return;
    }
    sessions.set(session, true);
    while (sessions.size > this.cap) {
      const oldest = sessions.keys().next().value as string;
      sessions.delete(oldest);
      this.forget(projectId, oldest);
    }
  }

  /** Sessions of a project, least recently used first. */
  list(projectId: string): string[] {
    return [...(this.byProject.get(projectId)?.keys() ?? [])];
  }

  /** A project was deleted, or its sessions cleared. */
  drop(projectId: string, session?: string): void {
    if (session === undefined) this.byProject.delete(projectId);
    else this.byProject.get(projectId)?.delete(session);
  }
}
