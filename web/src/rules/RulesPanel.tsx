import { useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import { useAuth } from '../auth';
import { useConfirm } from '../components/confirm';
import { moved, useDragReorder } from '../components/drag-reorder';
import { useToast } from '../components/toast';
import { EmptyState, ErrorBanner, Spinner } from '../components/ui';
import { useLoad } from '../hooks';
import { followStream } from '../sse';
import { RULE_LIMITS, type Rule } from '../types';
import { newRuleDraft, toDraft } from './draft';
import { RuleCard } from './RuleCard';
import { RuleEditor } from './RuleEditor';

/** The server's warnings beside a saved rule (a webhook target the egress will refuse). */
const warningText = (r: Rule) => {
  const w = (r as Rule & { warnings?: { message: string }[] }).warnings ?? [];
  return w.length ? ` — warning: ${w.map((x) => x.message).join('; ')}` : '';
};

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
  const focusNext = useRef<string | null>(null);
  useEffect(() => {
    const want = focusNext.current;
    if (!want || busy !== null) return;
    // a move button at the end of the list is disabled: its twin takes the focus
    const twin = want.endsWith('-up') ? want.replace(/-up$/, '-down') : want.replace(/-down$/, '-up');
    const el = [want, twin].map((x) => document.getElementById(x)).find((x) => x && !(x as HTMLButtonElement).disabled);
    if (el) {
      el.focus();
      focusNext.current = null;
    }
  });
  const [busy, setBusy] = useState<string | null>(null);
  const [rowError, setRowError] = useState<{ ruleId: string; message: string } | null>(null);
  const confirm = useConfirm();
  const toast = useToast();

  const limit = user ? RULE_LIMITS[user.plan] : 3;
  const list = rules.data ?? [];
  // drag a rule by its grip to reorder (↑/↓ are the keyboard path); moveTo is defined below
  const drag = useDragReorder((from, to) => void moveTo(from, to), busy !== null);
  const setData = rules.setData;

  // Sequence positions move with mock traffic: the project's live request stream says when a request
  // of this endpoint was answered, and the rules are read again at once (and every 15 s regardless).
  useEffect(() => {
    let pending: number | null = null;
    const refresh = () => {
      if (pending !== null) return;
      pending = window.setTimeout(() => {
        pending = null;
        api
          .rules(projectId, endpointId, session)
          .then((r) => {
            if (sessionRef.current === session) setData(() => r);
          })
          .catch(() => {});
      }, 100);
    };
    const stream = followStream(`/api/projects/${encodeURIComponent(projectId)}/requests/stream`, {
      onData: (data) => {
        try {
          if ((JSON.parse(data) as { endpointId?: string | null }).endpointId === endpointId) refresh();
        } catch {
          // not an entry
        }
      },
      onStatus: () => {},
    });
    const t = window.setInterval(() => {
      if (document.visibilityState === 'visible') refresh();
    }, 15_000);
    return () => {
      stream.close();
      window.clearInterval(t);
      if (pending !== null) window.clearTimeout(pending);
    };
  }, [projectId, endpointId, session, setData]);

  // Writes answer with the shared state: keep the shown session's position until the next refresh.
  const withState = (r: Rule, old: Rule | undefined) => (session && old ? { ...r, state: old.state } : r);
  const replace = (r: Rule) => setData((d) => d?.map((x) => (x.id === r.id ? withState(r, x) : x)));

  const run = async (ruleId: string, what: string, fn: () => Promise<void>) => {
    // the button pressed is disabled while it runs, which drops focus: it gets it back after
    const pressed = document.activeElement?.id;
    if (pressed && focusNext.current === null) focusNext.current = pressed;
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

  const moveTo = (i: number, to: number) => {
    const rule = list[i];
    if (to < 0 || to >= list.length || to === i) return;
    return run(rule.id, 'reorder', async () => {
      const order = moved(list, i, to);
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

  // after the editor closes, focus goes back where the user was (not to <body>)
  const close = (focusId: string) => {
    focusNext.current = focusId;
    setEditing(null);
  };
  const nextPriority = list.length ? Math.max(...list.map((r) => r.priority)) + 10 : 10;
  const atLimit = list.length >= limit;

  return (
    <section aria-labelledby="rules-title" className="rules">
      <div className="section-head">
        <div>
          <h2 id="rules-title">Rules</h2>
          <p className="muted small" aria-live="polite">
            <span className={atLimit ? 'limit-hit' : ''} id="rule-limit">
              {list.length} of {limit} rules{atLimit ? ' (the limit of your plan)' : ''}
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
          <button
            type="button"
            id="add-rule"
            className="btn btn-primary"
            disabled={atLimit}
            aria-describedby={atLimit ? 'rule-limit' : undefined}
            onClick={() => setEditing('new')}
          >
            Add rule
          </button>
        )}
      </div>
      {atLimit && (
        <div className="banner banner-warn banner-block" role="note">
          <p>
            This endpoint has {list.length} rules, as many as the {user?.plan ?? 'free'} plan allows: adding and
            duplicating rules wait for a larger plan (pro 15, business 25, unlimited no limit).
          </p>
          <p className="small">
            On your own server: <code>MOCKYARD_DEFAULT_PLAN=unlimited</code> sets the plan of new accounts,{' '}
            <code>npx mockyard user set-plan &lt;email&gt; pro</code> (or <code>PATCH /api/admin/users/:id</code> with
            the admin token) lifts one account; <code>serve --file</code> has no limit.
          </p>
        </div>
      )}
      {editing === 'new' && (
        <RuleEditor
          initial={newRuleDraft(nextPriority, list.length + 1)}
          title="New rule"
          submitLabel="Create rule"
          defaultContentType={contentType}
          onCancel={() => close('add-rule')}
          onSave={async (input) => {
            const r = await api.createRule(projectId, endpointId, input);
            setData((d) => [...(d ?? []), r].sort((a, b) => a.priority - b.priority));
            close(`rule-${r.id}-edit`);
            toast(`Created rule ${r.name}${warningText(r)}`);
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
            <li key={r.id} className={drag.className(i) || undefined} {...drag.target(i)}>
              {editing === r.id ? (
                <RuleEditor
                  initial={toDraft(r)}
                  title={`Edit rule ${r.name}`}
                  submitLabel="Save rule"
                  defaultContentType={contentType}
                  onCancel={() => close(`rule-${r.id}-edit`)}
                  onSave={async (input) => {
                    const u = await api.updateRule(projectId, endpointId, r.id, input);
                    setData((d) =>
                      d?.map((x) => (x.id === u.id ? withState(u, x) : x)).sort((a, b) => a.priority - b.priority),
                    );
                    close(`rule-${r.id}-edit`);
                    toast(`Saved rule ${u.name}${warningText(u)}`);
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
                  onMove={(dir) => void moveTo(i, i + dir)}
                  grip={drag.handle(i, () => document.getElementById(`rule-${r.id}-title`)?.closest('article') ?? null)}
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
                  onDuplicate={
                    atLimit
                      ? undefined
                      : () =>
                          run(r.id, 'duplicate the rule', async () => {
                            const { name, priority, active, conditions, response, actions } = r;
                            const c = await api.createRule(projectId, endpointId, {
                              name: `${name} (copy)`.slice(0, 100),
                              priority,
                              active,
                              conditions,
                              response,
                              actions,
                            });
                            setData((d) => [...(d ?? []), c].sort((a, b) => a.priority - b.priority));
                            focusNext.current = `rule-${c.id}-edit`;
                            toast(`Duplicated rule ${name}`);
                          })
                  }
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
