/**
 * A WebSocket endpoint's console (docs/websocket.md): a live socket from the browser to the mock,
 * messages both ways; pushes to a channel as a test would make them; the project's open sockets.
 */
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import type { Endpoint } from '../types';
import { samplePath } from './TestRequest';

interface Line {
  n: number;
  dir: 'in' | 'out' | 'note';
  text: string;
}

export function SocketConsole({ projectId, endpoint }: { projectId: string; endpoint: Endpoint }) {
  const id = useId();
  const [path, setPath] = useState(samplePath(endpoint.path));
  const [session, setSession] = useState('');
  const [lines, setLines] = useState<Line[]>([]);
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const ws = useRef<WebSocket | null>(null);
  const n = useRef(0);
  const add = (dir: Line['dir'], t: string) => setLines((l) => [...l.slice(-199), { n: ++n.current, dir, text: t }]);
  useEffect(() => () => ws.current?.close(), []);

  const connect = () => {
    // the dashboard's own origin (/m/<id>): a mock host elsewhere is outside its Content-Security-Policy
    const q = session ? `?mockyard-session=${encodeURIComponent(session)}` : '';
    const url = `${location.origin.replace(/^http/, 'ws')}/m/${encodeURIComponent(projectId)}${path}${q}`;
    const socket = new WebSocket(url);
    ws.current = socket;
    socket.onopen = () => {
      setOpen(true);
      add('note', `connected to ${url}`);
    };
    socket.onmessage = (m) => add('in', typeof m.data === 'string' ? m.data : '(binary)');
    socket.onclose = (c) => {
      setOpen(false);
      add('note', `closed: ${c.code}${c.reason ? ` ${c.reason}` : ''}`);
    };
    socket.onerror = () => add('note', 'the connection failed');
  };
  const send = (e: FormEvent) => {
    e.preventDefault();
    if (!ws.current || ws.current.readyState !== WebSocket.OPEN) return;
    ws.current.send(text);
    add('out', text);
    setText('');
  };

  return (
    <section className="card socket-console" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Connect and talk</h2>
      <div className="field-row">
        <div className="field grow">
          <label htmlFor={`${id}-path`}>Path</label>
          <input id={`${id}-path`} value={path} onChange={(e) => setPath(e.target.value)} disabled={open} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-session`}>Mock session (optional)</label>
          <input id={`${id}-session`} value={session} onChange={(e) => setSession(e.target.value)} disabled={open} />
        </div>
        <div className="field check-field">
          {open ? (
            <button type="button" className="btn" onClick={() => ws.current?.close(1000, 'dashboard')}>
              Disconnect
            </button>
          ) : (
            <button type="button" className="btn btn-primary" onClick={connect}>
              Connect
            </button>
          )}
        </div>
      </div>
      <ol className="socket-log" aria-label="Conversation" aria-live="polite">
        {lines.map((l) => (
          <li key={l.n} className={`socket-${l.dir}`}>
            <span className="muted small">{l.dir === 'in' ? '← ' : l.dir === 'out' ? '→ ' : ''}</span>
            <code>{l.text}</code>
          </li>
        ))}
      </ol>
      <form className="inline-form" onSubmit={send} aria-label="Send a message">
        <label htmlFor={`${id}-msg`}>Message</label>
        <input id={`${id}-msg`} value={text} onChange={(e) => setText(e.target.value)} disabled={!open} />
        <button type="submit" className="btn" disabled={!open}>
          Send
        </button>
      </form>
      <Push projectId={projectId} channels={['default', ...endpoint.channels]} />
      <OpenSockets projectId={projectId} />
    </section>
  );
}

/** The project's open sockets on the server's process. */
function OpenSockets({ projectId }: { projectId: string }) {
  const [list, setList] = useState<Awaited<ReturnType<typeof api.sockets>> | null>(null);
  return (
    <div className="open-sockets">
      <h3>Open sockets</h3>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => api.sockets(projectId).then(setList, () => setList([]))}
      >
        {list === null ? 'List open sockets' : 'Refresh'}
      </button>
      {list !== null &&
        (list.length === 0 ? (
          <p className="hint">No socket is open.</p>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col">Session</th>
                <th scope="col">Channels</th>
                <th scope="col">Connected</th>
              </tr>
            </thead>
            <tbody>
              {list.map((s) => (
                <tr key={s.id}>
                  <td>
                    <code>{s.path}</code>
                  </td>
                  <td>{s.session || '—'}</td>
                  <td>{s.channels.join(', ')}</td>
                  <td>{new Date(s.connectedAt).toLocaleTimeString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </div>
  );
}

function Push({ projectId, channels }: { projectId: string; channels: string[] }) {
  const id = useId();
  const [channel, setChannel] = useState(channels[0]);
  const [body, setBody] = useState('');
  const [session, setSession] = useState('');
  const [note, setNote] = useState('');
  return (
    <form
      aria-label="Push to a channel"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const r = await api.pushToChannel(projectId, channel, { body, ...(session ? { session } : {}) });
          const sockets = await api.sockets(projectId);
          setNote(`Delivered to ${r.delivered} socket${r.delivered === 1 ? '' : 's'}; ${sockets.length} open.`);
        } catch (err) {
          setNote(errorMessage(err));
        }
      }}
    >
      <h3>Push to a channel</h3>
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-channel`}>Channel</label>
          <select id={`${id}-channel`} value={channel} onChange={(e) => setChannel(e.target.value)}>
            {channels.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor={`${id}-body`}>Message to push</label>
          <input id={`${id}-body`} value={body} onChange={(e) => setBody(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-psession`}>Session</label>
          <input id={`${id}-psession`} value={session} onChange={(e) => setSession(e.target.value)} />
        </div>
        <div className="field check-field">
          <button type="submit" className="btn">
            Push
          </button>
        </div>
      </div>
      {note && (
        <p className="hint" role="status">
          {note}
        </p>
      )}
    </form>
  );
}
