/**
 * The caps of stored variables (docs/limits.md, "Output and state of one request"), applied to the
 * stored values an import brings: the same numbers as a `store_variable` action obeys.
 */

export interface StorageCaps {
  /** bytes of one stored value (UTF-8) */
  storedValueBytes: number;
  /** stored names per endpoint (or project) and session */
  storedNames: number;
}

/** 64 KiB a value, 1,000 names: the defaults of MOCKYARD_MAX_STORED_VALUE_BYTES and MOCKYARD_MAX_STORED_NAMES. */
export const DEFAULT_STORAGE_CAPS: StorageCaps = { storedValueBytes: 64 * 1024, storedNames: 1000 };

/** What of `entries` fits the caps, and a message for each entry left out. */
export function capStorage(
  entries: readonly [string, string][],
  caps: StorageCaps,
): { kept: [string, string][]; cut: { name: string; why: string }[] } {
  const kept: [string, string][] = [];
  const cut: { name: string; why: string }[] = [];
  for (const [name, value] of entries) {
    if (Buffer.byteLength(value) > caps.storedValueBytes)
      cut.push({ name, why: `the value is larger than ${caps.storedValueBytes} bytes` });
    else if (kept.length >= caps.storedNames)
      cut.push({ name, why: `at most ${caps.storedNames} stored names per endpoint or project` });
    else kept.push([name, value]);
  }
  return { kept, cut };
}
