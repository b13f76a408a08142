/**
 * A WebSocket's conversation in the inspector (docs/websocket.md): its connect, messages in and out
 * and close as a timeline, each message in with the rule that answered it.
 */
import type { LogEntry, Rule } from '../types';

export function Conversation({
  entries,
  rulesById,
  selected,
}: {
  entries: LogEntry[];
  rulesById: Map<string, Rule>;
  selected: string;
}) {
  // the list is newest first; a conversation reads oldest first
  const timeline = [...entries].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : 1));
  const t0 = timeline.length > 0 ? Date.parse(timeline[0].at) : 0;
  return (
    <>
      <h3>Conversation</h3>
      <ol className="trace socket-timeline" aria-label="Conversation">
        {timeline.map((x) => (
          <li key={x.id} aria-current={x.id === selected ? 'true' : undefined}>
            <span className="muted small">+{Date.parse(x.at) - t0} ms </span>
            <strong>{x.event === 'message' ? (x.direction === 'out' ? '→ sent' : '← received') : x.event}</strong>{' '}
            {x.body && <code>{x.body.length > 200 ? `${x.body.slice(0, 200)}…` : x.body}</code>}
            {x.direction === 'in' && x.event !== 'close' && (
              <span className="muted small">
                {' '}
                — {x.ruleId ? `rule “${rulesById.get(x.ruleId)?.name ?? x.ruleId}”` : 'no rule answered'}
              </span>
            )}
          </li>
        ))}
      </ol>
    </>
  );
}
