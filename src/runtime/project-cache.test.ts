/**
 * The project cache: unknown project ids are remembered briefly and boundedly (a scan of
 * random ids neither grows memory without end nor costs a query per request), and a malformed id
 * never reaches the store.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { RuntimeStore } from './ports.js';
import { ProjectCache } from './project-cache.js';

function fakeStore() {
  const calls = { load: 0, slug: 0 };
  const store = Object.assign(new EventEmitter(), {
    mockConfig: {
      load: async () => {
        calls.load++;
        return null;
      },
    },
    projects: {
      idBySlug: async () => {
        calls.slug++;
        return null;
      },
    },
    mockSessions: { forget: async () => {} },
    hot: {} as RuntimeStore['hot'],
  });
  return { store: store as EventEmitter & RuntimeStore, calls };
}

const id = (n: number) => `p${n.toString(36).padStart(21, '0')}`;

describe('ProjectCache', () => {
  it('remembers at most 10,000 unknown ids, each for a second, with one query per id', async () => {
    let now = 1_000_000;
    const { store, calls } = fakeStore();
    const cache = new ProjectCache(store, () => now);
    for (let n = 0; n < 25_000; n++) await cache.project(id(n));
    expect(calls.load).toBe(25_000);
    expect(cache.missCount).toBe(10_000);
    // a recent miss is answered from memory, synchronously
    expect(cache.project(id(24_999))).toBeNull();
    expect(calls.load).toBe(25_000);
    // after a second it is asked again (a project created meanwhile on another process is found)
    now += 1001;
    await cache.project(id(24_999));
    expect(calls.load).toBe(25_001);
  });

  it('never asks the store for an id that is not an id', async () => {
    const { store, calls } = fakeStore();
    const cache = new ProjectCache(store, Date.now);
    for (const bad of [
      '',
      'short',
      'x'.repeat(23),
      'has space in it 123456',
      '../../etc/passwd00000',
      'é'.repeat(22),
    ]) {
      expect(cache.project(bad)).toBeNull();
    }
    expect(calls.load).toBe(0);
    expect(cache.missCount).toBe(0);
  });

  it('bounds unknown mock-host labels the same way, and forgets them when any project changes', async () => {
    const { store, calls } = fakeStore();
    const cache = new ProjectCache(store, Date.now);
    expect(await cache.projectBySlug('nobody')).toBeNull();
    expect(cache.projectBySlug('nobody')).toBeNull();
    expect(calls.slug).toBe(1);
    expect(cache.projectBySlug('')).toBeNull();
    store.emit('change', id(1)); // e.g. a project just took the label
    await cache.projectBySlug('nobody');
    expect(calls.slug).toBe(2);
  });
});
