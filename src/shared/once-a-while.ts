/**
 * A warning that may repeat at every commit (a failure that persists) written at most once per
 * `everyMs` for each kind, with how many were left out since the last one written.
 */
export function onceAWhile(
  write: (kind: string, err: unknown, leftOut: number) => void,
  everyMs: number,
  now: () => number = Date.now,
): (kind: string, err: unknown) => void {
  const last = new Map<string, { at: number; leftOut: number }>();
  return (kind, err) => {
    const t = now();
    const seen = last.get(kind);
    if (seen && t - seen.at < everyMs) {
      seen.leftOut++;
      return;
    }
    last.set(kind, { at: t, leftOut: 0 });
    write(kind, err, seen?.leftOut ?? 0);
  };
}
