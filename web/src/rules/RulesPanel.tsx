import { useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import { useAuth } from '../auth';
import { useConfirm } from '../components/confirm';
import { useToast } from '../components/toast';
import { EmptyState, ErrorBanner, Spinner, StatusBadge } from '../components/ui';
import { useLoad } from '../hooks';
import { RULE_LIMITS, type Rule } from '../types';
import { ACTION_LABELS, describeCondition, FAULT_LABELS, newRuleDraft, toDraft } from './draft';
import { RuleEditor } from './RuleEditor';

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

function RuleCard({
  rule,
  session,
  index,
  total,
  busy,
  onToggle,
  onMove,
  onReset,
  onEdit,
  onDelete,
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
  onDelete: () => void;
}) {
  const titleId = `rule-${rule.id}-title`;
  return (
    <article className={`card rule-card${rule.active ? '' : ' inactive'}`} aria-labelledby={titleId}>
      <div className="rule-head">
        <div className="rule-order">
          <button
            type="button"
            className="btn btn-icon"
            aria-label={`Move ${rule.name} up`}
            disabled={busy || index === 0}
            onClick={() => onMove(-1)}
          >
            ↑
          </button>
          <button
            type="button"
            className="btn btn-icon"
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
                    {a.type === 'http_request' ? ` ${a.method} ${a.url}` : ` ${a.name}`}
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
          <button type="button" className="btn btn-small" disabled={busy} onClick={onEdit}>
            Edit
          </button>
          <button type="button" className="btn btn-small btn-danger-ghost" disabled={busy} onClick={onDelete}>
            Delete
          </button>
        </div>
      </div>
    </article>
  );
}

export function RulesPanel({
  projectId,
  endpointId,
  contentType,
  session,
}: {
  projectId: string;
  endpointId: string;
  contentType: string;
  /** whose sequence positions to show and reset: '' is the shared state, else a mock session */
  session: string;
}) {
  const { user } = useAuth();
  const rules = useLoad((s) => api.rules(projectId, endpointId, session, s), [projectId, endpointId, session]);
  // Answers for a session that is no longer selected are dropped.
  const sessionRef = useRef(session);
  sessionRef.current = session;
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [rowError, setRowError] = useState<{ ruleId: string; message: string } | null>(null);
  const confirm = useConfirm();
  const toast = useToast();

  const limit = user ? RULE_LIMITS[user.plan] : 3;
  const list = rules.data ?? [];
  const setData = rules.setData;

  // Sequence positions move with mock traffic: refresh quietly while the page is visible.
  useEffect(() => {
    const t = window.setInterval(() => {
      if (document.visibilityState !== 'visible') return;
      api
        .rules(projectId, endpointId, session)
        .then((r) => {
          if (sessionRef.current === session) setData(() => r);
        })
        .catch(() => {});
    }, 4000);
    return () => window.clearInterval(t);
  }, [projectId, endpointId, session, setData]);

  // Writes answer with the shared state: keep the shown session's position until the next refresh.
  const withState = (r: Rule, old: Rule | undefined) => (session && old ? { ...r, state: old.state } : r);
  const replace = (r: Rule) => setData((d) => d?.map((x) => (x.id === r.id ? withState(r, x) : x)));

  const run = async (ruleId: string, what: string, fn: () => Promise<void>) => {
    setBusy(ruleId);
    setRowError(null);
    try {
      await fn();
    } catch (err) {
      setRowError({ ruleId, message: `Could not ${what}: ${errorMessage(err)}` });
    } finally {
      setBusy(null);
    }
  };

  const move = (i: number, dir: -1 | 1) => {
    const rule = list[i];
    return run(rule.id, 'reorder', async () => {
      const order = [...list];
      [order[i], order[i + dir]] = [order[i + dir], order[i]];
      // Rewrite priorities as 10, 20, 30… so the new order is unambiguous.
      const changed = order
        .map((r, j) => ({ r, priority: (j + 1) * 10 }))
        .filter(({ r, priority }) => r.priority !== priority);
      const updated = await Promise.all(
        changed.map(({ r, priority }) => api.updateRule(projectId, endpointId, r.id, { priority })),
      );
      const byId = new Map(
        updated.map((u) => [
          u.id,
          withState(
            u,
            list.find((x) => x.id === u.id),
          ),
        ]),
      );
      setData(() => order.map((r) => byId.get(r.id) ?? r));
    });
  };

  const nextPriority = list.length ? Math.max(...list.map((r) => r.priority)) + 10 : 10;
  const atLimit = list.length >= limit;

  return (
    <section aria-labelledby="rules-title" className="rules">
      <div className="section-head">
        <div>
          <h2 id="rules-title">Rules</h2>
          <p className="muted small" aria-live="polite">
            <span className={atLimit ? 'limit-hit' : ''}>
              {list.length} of {limit} rules
            </span>{' '}
            on the {user?.plan ?? 'free'} plan · evaluated top to bottom
            {session ? (
              <>
                {' '}
                · positions of session <strong>{session}</strong>
              </>
            ) : null}
          </p>
        </div>
        {editing !== 'new' && (
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
            Add rule
          </button>
        )}
      </div>
      {atLimit && editing === 'new' && (
        <p className="banner banner-warn">
          This endpoint already has {list.length} rules, the limit of your plan; saving will be refused.
        </p>
      )}
      {editing === 'new' && (
        <RuleEditor
          initial={newRuleDraft(nextPriority, list.length + 1)}
          title="New rule"
          submitLabel="Create rule"
          defaultContentType={contentType}
          onCancel={() => setEditing(null)}
          onSave={async (input) => {
            const r = await api.createRule(projectId, endpointId, input);
            setData((d) => [...(d ?? []), r].sort((a, b) => a.priority - b.priority));
            setEditing(null);
            toast(`Created rule ${r.name}`);
          }}
        />
      )}
      <ErrorBanner error={rules.error} onRetry={rules.reload} />
      {rules.loading && !rules.data ? (
        <Spinner label="Loading rules…" />
      ) : list.length === 0 && editing !== 'new' && !rules.error ? (
        <EmptyState title="No rules yet">
          Every request gets the default response above. Add a rule to answer differently — for example a 500 when
          header <code>x-fail</code> is present, or <code>201</code> then <code>200</code> as a sequence.
        </EmptyState>
      ) : (
        <ol className="rule-list" aria-label="Rules in evaluation order">
          {list.map((r, i) => (
            <li key={r.id}>
              {editing === r.id ? (
                <RuleEditor
                  initial={toDraft(r)}
                  title={`Edit rule ${r.name}`}
                  submitLabel="Save rule"
                  defaultContentType={contentType}
                  onCancel={() => setEditing(null)}
                  onSave={async (input) => {
                    const u = await api.updateRule(projectId, endpointId, r.id, input);
                    setData((d) =>
                      d?.map((x) => (x.id === u.id ? withState(u, x) : x)).sort((a, b) => a.priority - b.priority),
                    );
                    setEditing(null);
                    toast(`Saved rule ${u.name}`);
                  }}
                />
              ) : (
                <RuleCard
                  rule={r}
                  session={session}
                  index={i}
                  total={list.length}
                  busy={busy !== null}
                  onToggle={(active) =>
                    run(r.id, active ? 'turn the rule on' : 'turn the rule off', async () => {
                      replace(await api.updateRule(projectId, endpointId, r.id, { active }));
                    })
                  }
                  onMove={(dir) => void move(i, dir)}
                  onReset={() =>
                    run(r.id, 'reset the sequence', async () => {
                      const u = await api.resetRule(projectId, endpointId, r.id, session);
                      setData((d) => d?.map((x) => (x.id === u.id ? u : x)));
                      toast(
                        session
                          ? `Sequence of ${r.name} is back at step 1 for session ${session}`
                          : `Sequence of ${r.name} is back at step 1 (shared and every session)`,
                      );
                    })
                  }
                  onEdit={() => setEditing(r.id)}
                  onDelete={async () => {
                    const ok = await confirm({
                      title: `Delete rule “${r.name}”?`,
                      message: (
                        <p>Requests that it matched will fall through to the next rule or the default response.</p>
                      ),
                      confirmLabel: 'Delete rule',
                      danger: true,
                    });
                    if (!ok) return;
                    await run(r.id, 'delete the rule', async () => {
                      await api.deleteRule(projectId, endpointId, r.id);
                      setData((d) => d?.filter((x) => x.id !== r.id));
                      toast(`Deleted rule ${r.name}`);
                    });
                  }}
                />
              )}
              {rowError?.ruleId === r.id && (
                <p className="field-error" role="alert">
                  {rowError.message}
                </p>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
