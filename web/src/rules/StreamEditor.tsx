/**
 * What a step streams instead of one body (docs/streams.md), edited as forms: a list of Server-Sent
 * Events (add, reorder, delay, fault, repeat, keep open), an LLM answer (provider, text, tool calls),
 * or a dribbled body — and, for anything else (WebSocket messages), the JSON itself. The draft keeps
 * the stream as JSON text (stream-draft.ts); these forms read and write that text, keeping fields
 * they do not show.
 */
import { useState } from 'react';
import { JsonEditor } from '../components/JsonEditor';
import { LLM_PROVIDERS, STREAM_FAULTS, type Step } from '../types';
import { Field, move, ReorderTools } from './fields';
import { parseStream } from './stream-draft';

type Stream = Partial<Step>;
type SseEvent = NonNullable<Step['events']>[number];
type Mode = 'none' | 'events' | 'llm' | 'chunks' | 'json';

const MODE_LABELS: Record<Mode, string> = {
  none: 'None — one body',
  events: 'Server-Sent Events',
  llm: 'LLM answer (OpenAI, Anthropic)',
  chunks: 'The body in chunks',
  json: 'JSON (WebSocket messages, anything else)',
};
const PROVIDER_LABELS: Record<string, string> = {
  'openai.chat': 'OpenAI chat completions',
  'openai.responses': 'OpenAI responses',
  'anthropic.messages': 'Anthropic messages',
};

function modeOf(s: Stream | null, text: string): Mode {
  if (text.trim() === '') return 'none';
  if (s === null) return 'json';
  if (s.messages !== undefined || s.close !== undefined) return 'json';
  if (s.events !== undefined) return 'events';
  if (s.llm !== undefined) return 'llm';
  if (s.chunks !== undefined) return 'chunks';
  return 'json';
}

const text = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
const int = (v: string) => (v.trim() === '' || !/^\d+$/.test(v.trim()) ? undefined : Number(v.trim()));
/** A data or arguments field: JSON when it reads as an object or array, else the text (a template). */
const dataOf = (v: string): unknown => {
  const t = v.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t);
    } catch {
      return v;
    }
  }
  return v;
};
/** Drops the keys whose value is undefined or '' (the API takes absent, not empty). */
const clean = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as T;

export function StreamEditor({
  value,
  onChange,
  errors,
  stepLabel,
}: {
  value: string;
  onChange: (text: string) => void;
  errors: string[];
  stepLabel: string;
}) {
  const parsed = parseStream(value);
  const [forced, setForced] = useState<Mode | null>(null);
  const mode = forced ?? modeOf(parsed, value);
  const s: Stream = parsed ?? {};
  const write = (next: Stream) => onChange(Object.keys(next).length === 0 ? '' : JSON.stringify(next, null, 2));

  const choose = (m: Mode) => {
    setForced(m === 'json' ? 'json' : null);
    if (m === 'none') return onChange('');
    if (m === 'events' && mode !== 'events') return write({ events: [{ data: 'hello' }] });
    if (m === 'llm' && mode !== 'llm') return write({ llm: { provider: 'openai.chat', text: 'Hello!' } });
    if (m === 'chunks' && mode !== 'chunks') return write({ chunks: { count: 4, intervalMs: 250 } });
  };

  const events = s.events ?? [];
  const setEvent = (i: number, patch: Partial<SseEvent>) =>
    write({ ...s, events: events.map((e, j) => (j === i ? clean({ ...e, ...patch }) : e)) });
  const llm = s.llm;
  const setLlm = (patch: Partial<NonNullable<Step['llm']>>) =>
    write({ ...s, llm: clean({ ...(llm ?? { provider: 'openai.chat' }), ...patch }) as NonNullable<Step['llm']> });
  const tools = llm?.toolCalls ?? [];

  return (
    <fieldset className="stream-editor">
      <legend>Stream</legend>
      <Field label={`What ${stepLabel} streams`}>
        {(id) => (
          <select id={id} value={mode} onChange={(e) => choose(e.target.value as Mode)}>
            {(Object.keys(MODE_LABELS) as Mode[]).map((m) => (
              <option key={m} value={m}>
                {MODE_LABELS[m]}
              </option>
            ))}
          </select>
        )}
      </Field>

      {mode === 'events' && (
        <>
          <ol className="event-list" aria-label={`Events of ${stepLabel}`}>
            {events.map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: events have no identity but their place
              <li key={i} className="event-row">
                <ReorderTools
                  noun="event"
                  i={i}
                  count={events.length}
                  moveBy={(d) => write({ ...s, events: move(events, i, d) })}
                  remove={() => write({ ...s, events: events.filter((_, j) => j !== i) })}
                  removeDisabled={events.length === 1}
                />
                <div className="grid-event">
                  <Field label={`Event ${i + 1} name`}>
                    {(id) => (
                      <input
                        id={id}
                        value={e.event ?? ''}
                        placeholder="message"
                        onChange={(x) => setEvent(i, { event: x.target.value || undefined })}
                      />
                    )}
                  </Field>
                  <Field label={`Event ${i + 1} id`}>
                    {(id) => (
                      <input
                        id={id}
                        value={e.id ?? ''}
                        onChange={(x) => setEvent(i, { id: x.target.value || undefined })}
                      />
                    )}
                  </Field>
                  <Field label={`Event ${i + 1} delay (ms)`}>
                    {(id) => (
                      <input
                        id={id}
                        inputMode="numeric"
                        value={e.delayMs ?? ''}
                        onChange={(x) => setEvent(i, { delayMs: int(x.target.value) })}
                      />
                    )}
                  </Field>
                  <Field label={`Event ${i + 1} fault`}>
                    {(id) => (
                      <select
                        id={id}
                        value={e.fault ?? ''}
                        onChange={(x) => setEvent(i, { fault: (x.target.value || undefined) as SseEvent['fault'] })}
                      >
                        <option value="">None</option>
                        {STREAM_FAULTS.map((f) => (
                          <option key={f} value={f}>
                            {f === 'stall' ? 'Stall here' : 'Reset the connection here'}
                          </option>
                        ))}
                      </select>
                    )}
                  </Field>
                  <Field
                    label={`Event ${i + 1} data`}
                    className="span-all"
                    hint="A template; JSON objects and arrays are sent as JSON."
                  >
                    {(id, _inv, hintId) => (
                      <textarea
                        id={id}
                        rows={2}
                        className="code"
                        aria-describedby={hintId}
                        value={text(e.data)}
                        onChange={(x) => setEvent(i, { data: dataOf(x.target.value) })}
                      />
                    )}
                  </Field>
                </div>
              </li>
            ))}
          </ol>
          <div className="row-actions">
            <button
              type="button"
              className="btn btn-small"
              onClick={() => write({ ...s, events: [...events, { data: '', delayMs: 500 }] })}
            >
              + Add event
            </button>
          </div>
          <div className="grid-step">
            <Field label="Repeat the list (times)">
              {(id) => (
                <input
                  id={id}
                  inputMode="numeric"
                  value={s.repeat ?? ''}
                  placeholder="1"
                  onChange={(x) => write(clean({ ...s, repeat: int(x.target.value) }))}
                />
              )}
            </Field>
            <label className="check">
              <input
                type="checkbox"
                checked={s.keepOpen === true}
                onChange={(x) => write(clean({ ...s, keepOpen: x.target.checked || undefined }))}
              />
              Keep the stream open after the last event (with heartbeats)
            </label>
          </div>
        </>
      )}

      {mode === 'llm' && llm && (
        <>
          <div className="grid-step">
            <Field label="Provider">
              {(id) => (
                <select
                  id={id}
                  value={llm.provider}
                  onChange={(x) => setLlm({ provider: x.target.value as typeof llm.provider })}
                >
                  {LLM_PROVIDERS.map((p) => (
                    <option key={p} value={p}>
                      {PROVIDER_LABELS[p] ?? p}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Model">
              {(id) => (
                <input
                  id={id}
                  value={llm.model ?? ''}
                  placeholder="the request's model"
                  onChange={(x) => setLlm({ model: x.target.value || undefined })}
                />
              )}
            </Field>
            <Field label="Delay between chunks (ms)">
              {(id) => (
                <input
                  id={id}
                  inputMode="numeric"
                  value={llm.delayMs ?? ''}
                  onChange={(x) => setLlm({ delayMs: int(x.target.value) })}
                />
              )}
            </Field>
          </div>
          <Field label="Answer text" hint="A template; empty echoes the last user message.">
            {(id, _inv, hintId) => (
              <textarea
                id={id}
                rows={3}
                aria-describedby={hintId}
                value={llm.text ?? ''}
                onChange={(x) => setLlm({ text: x.target.value || undefined })}
              />
            )}
          </Field>
          <ol className="event-list" aria-label="Tool calls">
            {tools.map((t, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: tool calls have no identity but their place
              <li key={i} className="event-row">
                <ReorderTools
                  noun="tool call"
                  i={i}
                  count={tools.length}
                  moveBy={(d) => setLlm({ toolCalls: move(tools, i, d) })}
                  remove={() => setLlm({ toolCalls: tools.filter((_, j) => j !== i) })}
                />
                <div className="grid-event">
                  <Field label={`Tool call ${i + 1} name`}>
                    {(id) => (
                      <input
                        id={id}
                        value={t.name}
                        onChange={(x) =>
                          setLlm({ toolCalls: tools.map((c, j) => (j === i ? { ...c, name: x.target.value } : c)) })
                        }
                      />
                    )}
                  </Field>
                  <Field label={`Tool call ${i + 1} arguments (JSON)`} className="span-all">
                    {(id) => (
                      <textarea
                        id={id}
                        rows={2}
                        className="code"
                        value={text(t.arguments)}
                        onChange={(x) =>
                          setLlm({
                            toolCalls: tools.map((c, j) => (j === i ? { ...c, arguments: dataOf(x.target.value) } : c)),
                          })
                        }
                      />
                    )}
                  </Field>
                </div>
              </li>
            ))}
          </ol>
          <div className="row-actions">
            <button
              type="button"
              className="btn btn-small"
              onClick={() => setLlm({ toolCalls: [...tools, { name: 'get_weather', arguments: { city: 'Paris' } }] })}
            >
              + Add tool call
            </button>
          </div>
        </>
      )}

      {mode === 'chunks' && (
        <div className="grid-step">
          {(['count', 'size', 'intervalMs'] as const).map((k) => (
            <Field key={k} label={k === 'count' ? 'Chunks' : k === 'size' ? 'Bytes per chunk' : 'Interval (ms)'}>
              {(id) => (
                <input
                  id={id}
                  inputMode="numeric"
                  value={s.chunks?.[k] ?? ''}
                  onChange={(x) =>
                    write({ ...s, chunks: clean({ intervalMs: 0, ...s.chunks, [k]: int(x.target.value) }) })
                  }
                />
              )}
            </Field>
          ))}
        </div>
      )}

      {mode === 'json' && (
        <JsonEditor
          label="Stream or socket (JSON: events, chunks or llm — docs/streams.md; messages, close — docs/websocket.md)"
          rows={6}
          value={value}
          onChange={onChange}
          json
          errors={errors}
        />
      )}
      {mode !== 'json' && errors.length > 0 && (
        <p className="field-error" role="alert">
          {errors.join(' ')}
        </p>
      )}
    </fieldset>
  );
}
