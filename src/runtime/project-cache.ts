/**
 * Compiled projects by id, and project ids by mock-host label. A snapshot is compiled once per
 * configuration version and swapped whole when a change arrives (`invalidate`), so a request sees
 * one consistent version from start to end. Unknown ids and labels are remembered briefly and
 * boundedly: a scan of random ids neither grows memory without end nor costs a query per request.
 */
import { SLUG } from '../domain/validate.js';
import { sameText } from '../shared/same-text.js';
import { type CompiledProject, compileProject } from './compile.js';
import { fakerLoaded, loadFaker } from './faker.js';
import type { RuntimeStore } from './ports.js';

/** Record ids are 22 base64url characters (src/domain/ids.ts): anything else is no project, without a query. */
const PROJECT_ID = /^[A-Za-z0-9_-]{22}$/;
/** How long an unknown project id or label is answered from memory (a new one is served within it). */
const MISS_TTL_MS = 1000;
/** Unknown ids and labels remembered at once (the oldest are forgotten first). */
export const MAX_MISSES = 10_000;

/** A bounded map of recent misses (oldest forgotten first). */
class MissCache {
  private readonly until = new Map<string, number>();
  constructor(private readonly now: () => number) {}
  has(key: string): boolean {
    const t = this.until.get(key);
    if (t === undefined) return false;
    if (t > this.now()) return true;
    this.until.delete(key);
    return false;
  }
  add(key: string): void {
    this.until.delete(key);
    if (this.until.size >= MAX_MISSES) {
      const oldest = this.until.keys().next().value;
      if (oldest !== undefined) this.until.delete(oldest);
    }
    this.until.set(key, this.now() + MISS_TTL_MS);
  }
  delete(key: string): void {
    this.until.delete(key);
  }
  clear(): void {
    this.until.clear();
  }
  get size(): number {
    return this.until.size;
  }
}

type Loaded = CompiledProject | null;

export class ProjectCache {
  private readonly cache = new Map<string, CompiledProject>();
  private readonly misses: MissCache;
  private readonly loading = new Map<string, Promise<Loaded>>();
  private readonly generation = new Map<string, number>();
  /** mock host label → project id (SECURITY.md) */
  private readonly slugs = new Map<string, string>();
  private readonly slugMisses: MissCache;

  constructor(
    private readonly store: RuntimeStore,
    now: () => number,
  ) {
    this.misses = new MissCache(now);
    this.slugMisses = new MissCache(now);
    store.on('change', (projectId: string) => this.invalidate(projectId));
  }

  /**
   * The project the last cached lookup found: mock traffic mostly repeats one project, and its id
   * compared character by character skips hashing the request's fresh id string (see sameText).
   * Holds the compiled project only (its id is the project's own string), dropped on any change.
   */
  private last: CompiledProject | null = null;

  /** Drops a project's snapshot; the next request compiles the current configuration. */
  invalidate(projectId: string): void {
    this.last = null;
    this.generation.set(projectId, (this.generation.get(projectId) ?? 0) + 1);
    this.cache.delete(projectId);
    this.misses.delete(projectId);
    this.loading.delete(projectId);
    // its slug may have changed, or a new project may hold a label that missed before
    for (const [slug, id] of this.slugs) if (id === projectId) this.slugs.delete(slug);
    this.slugMisses.clear();
  }

  /** Ids and versions of the cached snapshots (for the cross-process safety net). */
  cachedVersions(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [id, e] of this.cache) out.set(id, e.version);
    return out;
  }

  /** Unknown ids remembered (bounded). */
  get missCount(): number {
    return this.misses.size;
  }

  /** The compiled project, from the cache when possible (synchronous then). */
  project(projectId: string): Loaded | Promise<Loaded> {
    const last = this.last;
    if (last !== null && sameText(projectId, last.id)) return last;
    const hit = this.cache.get(projectId);
    if (hit !== undefined) {
      this.last = hit;
      return hit;
    }
    if (!PROJECT_ID.test(projectId) || this.misses.has(projectId)) return null;
    let p = this.loading.get(projectId);
    if (!p) {
      const gen = this.generation.get(projectId) ?? 0;
      p = this.store.mockConfig.load(projectId).then(
        async (cfg) => {
          const compiled = cfg ? compileProject(cfg) : null;
          // faker is loaded on first use, before the project that uses it is served (faker.ts)
          if (compiled?.usesFaker && !fakerLoaded()) await loadFaker();
          if ((this.generation.get(projectId) ?? 0) === gen) {
            if (compiled) this.cache.set(projectId, compiled);
            else this.misses.add(projectId);
            this.loading.delete(projectId);
          }
          return compiled;
        },
        (err) => {
          if (this.loading.get(projectId) === p) this.loading.delete(projectId);
          throw err;
        },
      );
      this.loading.set(projectId, p);
    }
    return p;
  }

  /**
   * `/m/<ref>/…`: the project with that id, else the one with that slug (ids are 22 mixed-case
   * characters, slugs lower-case DNS labels: a ref is tried as an id first when it could be one).
   */
  projectByRef(ref: string): Loaded | Promise<Loaded> {
    const byId = this.project(ref);
    if ((byId !== null && !(byId instanceof Promise)) || !SLUG.test(ref)) return byId;
    if (byId instanceof Promise) return byId.then((p) => p ?? this.projectBySlug(ref));
    return byId ?? this.projectBySlug(ref);
  }

  /** The project served on the mock host `<slug>.<domain>`, like `project`. */
  projectBySlug(slug: string): Loaded | Promise<Loaded> {
    const id = this.slugs.get(slug);
    if (id !== undefined) return this.project(id);
    if (slug === '' || this.slugMisses.has(slug)) return null;
    return this.store.projects.idBySlug(slug).then((found) => {
      if (found === null) {
        this.slugMisses.add(slug);
        return null;
      }
      if (this.slugs.size >= MAX_MISSES) this.slugs.clear();
      this.slugs.set(slug, found);
      return this.project(found);
    });
  }
}
