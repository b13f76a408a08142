import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, errorMessage } from './api';
import type { ErrorDetail } from './types';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  /** the API error, e.g. to tell 404 from a network failure */
  apiError: ApiError | null;
  loading: boolean;
  reload: () => void;
  setData: (fn: (d: T | undefined) => T | undefined) => void;
}

/** Loads once per change of `deps`; aborts stale loads. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: DependencyList): Loaded<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  // biome-ignore lint/correctness/useExhaustiveDependencies: callers pass the inputs of `load` as deps
  useEffect(() => {
    const ctl = new AbortController();
    setLoading(true);
    setError(null);
    loadRef
      .current(ctl.signal)
      .then((d) => {
        if (!ctl.signal.aborted) setDataState(d);
      })
      .catch((err) => {
        if (!ctl.signal.aborted) setError(err instanceof Error ? err : new Error(String(err)));
      })
      .finally(() => {
        if (!ctl.signal.aborted) setLoading(false);
      });
    return () => ctl.abort();
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  const setData = useCallback((fn: (d: T | undefined) => T | undefined) => setDataState((d) => fn(d)), []);
  return {
    data,
    error: error ? errorMessage(error) : null,
    apiError: error instanceof ApiError ? error : null,
    loading,
    reload,
    setData,
  };
}

/**
 * Places each `details[]` entry of a validation error at the deepest known anchor that prefixes its
 * path, so that it can be shown next to the field that caused it. Entries without an anchor go to ''.
 */
export function anchorErrors(details: ErrorDetail[], anchors: string[]): Map<string, string[]> {
  const sorted = [...anchors].sort((a, b) => b.length - a.length);
  const out = new Map<string, string[]>();
  for (const d of details) {
    const at = sorted.find((a) => a !== '' && (d.path === a || d.path.startsWith(`${a}/`))) ?? '';
    const list = out.get(at) ?? [];
    list.push(d.message || 'Invalid value');
    out.set(at, list);
  }
  return out;
}
