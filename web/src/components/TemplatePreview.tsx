/**
 * The live preview of a templated body (docs/templates.md "Previews"): the template rendered by the
 * server against a sample request the user edits, or one picked from the project's request log; a
 * JSON body with blocks is checked here, on what it renders.
 */
import { useEffect, useId, useState } from 'react';
import { ApiError, api, type SampleRequest } from '../api';
import type { LogEntry } from '../types';

interface Props {
  template: string;
  json: boolean;
  projectId: string;
  method?: string;
  path?: string;
}

const sampleText = (s: SampleRequest) => JSON.stringify(s, null, 2);

function fromEntry(e: LogEntry): SampleRequest {
  let body: unknown = e.body;
  try {
    body = e.body === '' ? undefined : JSON.parse(e.body);
  } catch {
    // text body
  }
  return { method: e.method, path: e.path, query: e.query, headers: e.headers, body };
}

export function TemplatePreview({ template, json, projectId, method = 'GET', path = '/' }: Props) {
  const id = useId();
  const [sample, setSample] = useState(() => sampleText({ method, path, query: '', headers: {}, body: null }));
  const [output, setOutput] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [log, setLog] = useState<LogEntry[] | null>(null);

  useEffect(() => {
    let request: SampleRequest;
    try {
      request = JSON.parse(sample) as SampleRequest;
    } catch {
      setProblem('The sample request is not valid JSON.');
      return;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => {
      api
        .renderTemplate(projectId, { template, request }, abort.signal)
        .then((r) => {
          setOutput(r.output);
          setProblem(null);
        })
        .catch((err: unknown) => {
          if (abort.signal.aborted) return;
          const d = err instanceof ApiError ? err.details[0] : undefined;
          setOutput(null);
          setProblem(
            d?.line !== undefined
              ? `Line ${d.line}, column ${d.column}: ${d.message}`
              : err instanceof Error
                ? err.message
                : String(err),
          );
        });
    }, 250);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [template, sample, projectId]);

  let jsonNote: string | null = null;
  if (json && output !== null && output.trim() !== '') {
    try {
      JSON.parse(output);
      jsonNote = 'The rendered body is valid JSON.';
    } catch (err) {
      jsonNote = `The rendered body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  return (
    <details
      className="template-preview"
      onToggle={(e) =>
        e.currentTarget.open && log === null && api.requests(projectId, 20).then(setLog, () => setLog([]))
      }
    >
      <summary>Preview</summary>
      <div className="field">
        <label htmlFor={`${id}-pick`}>Render against a request from the log</label>
        <select
          id={`${id}-pick`}
          value=""
          onChange={(e) => {
            const entry = log?.find((x) => x.id === e.target.value);
            if (entry) setSample(sampleText(fromEntry(entry)));
          }}
        >
          <option value="">
            {log === null ? 'Loading…' : log.length === 0 ? 'No requests yet' : 'Pick a request…'}
          </option>
          {(log ?? []).map((x) => (
            <option key={x.id} value={x.id}>
              {x.method} {x.path}
              {x.query ? `?${x.query}` : ''} · {x.statusCode}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-sample`}>Sample request (method, path, query, headers, body)</label>
        <textarea
          id={`${id}-sample`}
          className="code"
          rows={6}
          spellCheck={false}
          value={sample}
          onChange={(e) => setSample(e.target.value)}
        />
      </div>
      <output htmlFor={`${id}-sample`} aria-live="polite" className="preview-output">
        {problem !== null ? <p className="hint hint-bad">{problem}</p> : <pre className="code">{output ?? '…'}</pre>}
        {jsonNote && <p className={`hint ${jsonNote.includes('not') ? 'hint-bad' : 'hint-ok'}`}>{jsonNote}</p>}
      </output>
    </details>
  );
}
