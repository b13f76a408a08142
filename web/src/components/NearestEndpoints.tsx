/** An unmatched request's nearest endpoints (docs/api.md "Mock traffic"), with what differs marked. */
import type { LogEntry } from '../types';

/** A near endpoint with what differs from the request marked: the method, and the segments that do not fit. */
function NearPath({ method, path, near }: { method: string; path: string; near: { method: string; path: string } }) {
  const req = path.split('/').filter(Boolean);
  const segs = near.path.split('/').filter(Boolean);
  return (
    <code>
      {near.method === method ? near.method : <mark title={`the request is ${method}`}>{near.method}</mark>}{' '}
      {segs.length === 0
        ? '/'
        : segs.map((seg, i) => {
            const fits = seg.startsWith(':') || seg === '*' || req[i] === seg;
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: segments are in their order
              <span key={i}>
                /
                {fits ? (
                  seg
                ) : (
                  <mark
                    title={req[i] === undefined ? 'the request has no such segment' : `the request has “${req[i]}”`}
                  >
                    {seg}
                  </mark>
                )}
              </span>
            );
          })}
    </code>
  );
}

export function NearestEndpoints({ e }: { e: LogEntry }) {
  if (e.endpointId || !e.nearest || e.nearest.length === 0) return null;
  return (
    <>
      <h3>Nearest endpoints</h3>
      <ol className="trace" aria-label="Nearest endpoints">
        {e.nearest.map((n) => (
          <li key={`${n.method} ${n.path}`}>
            <NearPath method={e.method} path={e.path} near={n} /> — {n.why}
          </li>
        ))}
      </ol>
    </>
  );
}
