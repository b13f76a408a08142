import type { HTMLAttributes } from 'react';
import { StatusBadge } from '../components/ui';
import type { Rule } from '../types';
import { ACTION_LABELS, describeCondition, FAULT_LABELS } from './draft';

/** One rule as a card: its conditions, answer (sequence position), actions and its buttons. */
function SequenceState({ rule }: { rule: Rule }) {
  const steps = rule.response?.steps ?? [];
  if (steps.length === 0) return null;
  const at = Math.min(rule.state.step, steps.length - 1);
  const step = steps[at];
  return (
    <span>
      Next: step {at + 1} of {steps.length} ({step.statusCode}
      {steps.length > 1 || step.count > 1 ? `, served ${rule.state.served} of ${step.count}` : ''})
    </span>
  );
}

export function RuleCard({
  rule,
  session,
  index,
  total,
  busy,
  onToggle,
  onMove,
  onReset,
  onEdit,
  onDuplicate,
  onDelete,
  grip,
}: {
  rule: Rule;
  session: string;
  index: number;
  total: number;
  busy: boolean;
  onToggle: (active: boolean) => void;
  onMove: (dir: -1 | 1) => void;
  onReset: () => void;
  onEdit: () => void;
  /** a copy below it (absent at the plan's limit) */
  onDuplicate?: () => void;
  onDelete: () => void;
  /** drag props of the grip (drag-reorder.ts) */
  grip?: HTMLAttributes<HTMLSpanElement>;
}) {
  const titleId = `rule-${rule.id}-title`;
  return (
    <article className={`card rule-card${rule.active ? '' : ' inactive'}`} aria-labelledby={titleId}>
      <div className="rule-head">
        {grip && (
          <span className="drag-grip" title="Drag to reorder" aria-hidden="true" data-testid="rule-grip" {...grip}>
            ⠿
          </span>
        )}
        <div className="rule-order">
          <button
            type="button"
            className="btn btn-icon"
            id={`rule-${rule.id}-up`}
            aria-label={`Move ${rule.name} up`}
            disabled={busy || index === 0}
            onClick={() => onMove(-1)}
          >
            ↑
          </button>
          <button
            type="button"
            className="btn btn-icon"
            id={`rule-${rule.id}-down`}
            aria-label={`Move ${rule.name} down`}
            disabled={busy || index === total - 1}
            onClick={() => onMove(1)}
          >
            ↓
          </button>
        </div>
        <div className="rule-title">
          <h3 id={titleId}>{rule.name}</h3>
          <span className="muted small">priority {rule.priority}</span>
        </div>
        <label className="switch">
          <input
            type="checkbox"
            checked={rule.active}
            id={`rule-${rule.id}-active`}
            disabled={busy}
            aria-label={`Active: ${rule.name}`}
            onChange={(e) => onToggle(e.target.checked)}
          />
          <span className="switch-track" aria-hidden="true" />
          <span className="switch-text">{rule.active ? 'Active' : 'Off'}</span>
        </label>
      </div>

      <dl className="rule-summary">
        <dt>When</dt>
        <dd>
          {rule.conditions.length === 0 ? (
            <span className="muted">every request</span>
          ) : (
            <ul className="chips">
              {rule.conditions.map((c, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: conditions have no id
                <li key={i} className="chip">
                  {describeCondition(c)}
                </li>
              ))}
            </ul>
          )}
        </dd>
        {rule.actions.length > 0 && (
          <>
            <dt>Run</dt>
            <dd>
              <ul className="chips">
                {rule.actions.map((a, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: actions have no id
                  <li key={i} className="chip">
                    {ACTION_LABELS[a.type]}
                    {a.type === 'http_request'
                      ? ` ${a.method} ${a.url}`
                      : a.type === 'broadcast'
                        ? ` → ${a.channel}`
                        : ` ${a.name}`}
                    {a.type === 'http_request' && a.saveAs ? ` → vars.${a.saveAs}` : ''}
                    {a.onError === 'stop' ? ' · stop on error' : ''}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        <dt>Answer</dt>
        <dd>
          {rule.response ? (
            <span className="seq">
              <span className="muted">{rule.response.mode === 'loop' ? 'Loop' : 'Hold last'}:</span>
              {rule.response.steps.map((s, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: steps have no id
                <span key={i} className={`seq-step${i === rule.state.step ? ' current' : ''}`}>
                  <StatusBadge code={s.statusCode} />
                  {s.count > 1 && <span className="muted">×{s.count}</span>}
                  {s.fault && <span className="fault">{FAULT_LABELS[s.fault]}</span>}
                  {s.events && <span className="tag">SSE · {s.events.length * (s.repeat ?? 1)} events</span>}
                  {s.llm && <span className="tag">LLM · {s.llm.provider}</span>}
                  {s.chunks && <span className="tag">chunked</span>}
                  {(s.delayMs > 0 || s.delayMaxMs > 0) && (
                    <span className="muted small">
                      {s.delayMaxMs > s.delayMs ? `${s.delayMs}–${s.delayMaxMs}` : s.delayMs} ms
                    </span>
                  )}
                </span>
              ))}
            </span>
          ) : (
            <span className="muted">none — evaluation continues</span>
          )}
        </dd>
      </dl>

      <div className="rule-foot">
        <span className="state">
          <SequenceState rule={rule} />
          {rule.response && session && <span className="tag tag-session">session {session}</span>}
        </span>
        <div className="row-actions">
          {rule.response && (
            <button
              type="button"
              className="btn btn-small"
              disabled={busy}
              onClick={onReset}
              title={
                session
                  ? `Back to step 1 for session ${session} only`
                  : 'Back to step 1 for requests without a session, and for every mock session'
              }
            >
              Reset sequence
            </button>
          )}
          <button type="button" className="btn btn-small" id={`rule-${rule.id}-edit`} disabled={busy} onClick={onEdit}>
            Edit
          </button>
          {onDuplicate && (
            <button type="button" className="btn btn-small" disabled={busy} onClick={onDuplicate}>
              Duplicate
            </button>
          )}
          <button type="button" className="btn btn-small btn-danger-ghost" disabled={busy} onClick={onDelete}>
            Delete
          </button>
        </div>
      </div>
    </article>
  );
}
