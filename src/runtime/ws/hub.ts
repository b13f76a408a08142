/**
 * The open WebSockets of this process (docs/websocket.md): by project, with their channels and mock
 * session. A push (`broadcast`, `POST …/channels/:channel/messages`) reaches the sockets on that
 * channel in the same session here, and through `remote` (PostgreSQL NOTIFY) on the other processes.
 * A socket that does not read is closed rather than buffered without bound.
 */
import type { WebSocket } from 'ws';

export interface LiveSocket {
  readonly id: string;
  readonly projectId: string;
  readonly endpointId: string;
  readonly path: string;
  readonly session: string;
  readonly channels: ReadonlySet<string>;
  readonly connectedAt: string;
  readonly ws: WebSocket;
  /** sends one message out (logged), unless the socket is gone */
  send(text: string): void;
}

/** Bytes a client may leave unread before its socket is closed (1008). */
export const MAX_BUFFERED = 4 * 1024 * 1024;

/** A GraphQL subscription listening on a channel (docs/graphql.md). */
export interface ChannelListener {
  readonly session: string;
  receive(text: string): void;
}

export class SocketHub {
  private readonly byProject = new Map<string, Set<LiveSocket>>();
  /** `projectId \0 channel` → the GraphQL subscriptions on it */
  private readonly listeners = new Map<string, Set<ChannelListener>>();

  /** Listens to a channel of a project (a GraphQL subscription); the function that stops it. */
  listen(projectId: string, channel: string, l: ChannelListener): () => void {
    const key = `${projectId}\0${channel}`;
    let set = this.listeners.get(key);
    if (!set) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(l);
    return () => {
      set.delete(l);
      if (set.size === 0) this.listeners.delete(key);
    };
  }
  /** set by the server when a change feed runs (PostgreSQL): pushes go to the other processes too */
  remote: ((payload: string) => boolean) | null = null;

  add(s: LiveSocket): void {
    let set = this.byProject.get(s.projectId);
    if (!set) {
      set = new Set();
      this.byProject.set(s.projectId, set);
    }
    set.add(s);
  }

  remove(s: LiveSocket): void {
    const set = this.byProject.get(s.projectId);
    if (!set) return;
    set.delete(s);
    if (set.size === 0) this.byProject.delete(s.projectId);
  }

  count(projectId: string): number {
    return this.byProject.get(projectId)?.size ?? 0;
  }

  list(projectId: string) {
    return [...(this.byProject.get(projectId) ?? [])].map((s) => ({
      id: s.id,
      endpointId: s.endpointId,
      path: s.path,
      session: s.session,
      channels: [...s.channels],
      connectedAt: s.connectedAt,
    }));
  }

  /** Sends to this process's sockets on the channel in the session; how many got it. */
  deliver(projectId: string, channel: string, session: string, text: string): number {
    let n = 0;
    for (const s of this.byProject.get(projectId) ?? []) {
      if (s.session !== session || !s.channels.has(channel)) continue;
      s.send(text);
      n++;
    }
    for (const l of this.listeners.get(`${projectId}\0${channel}`) ?? []) {
      if (l.session !== session) continue;
      l.receive(text);
      n++;
    }
    return n;
  }

  /** Sends here and on the other processes; the sockets of this process that got it. */
  publish(projectId: string, channel: string, session: string, text: string): number {
    this.remote?.(JSON.stringify({ p: projectId, c: channel, s: session, t: text }));
    return this.deliver(projectId, channel, session, text);
  }

  /** A push another process made (the change feed's payload). */
  received(payload: string): void {
    try {
      const m = JSON.parse(payload) as { p: string; c: string; s: string; t: string };
      this.deliver(m.p, m.c, m.s, m.t);
    } catch {
      // not ours
    }
  }

  /** Closes every socket (1001 going away: the server shuts down). */
  closeAll(code = 1001, reason = 'server shutting down'): void {
    for (const set of this.byProject.values()) for (const s of set) s.ws.close(code, reason);
  }
}
