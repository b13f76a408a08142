import { createContext, lazy, Suspense, useContext, useId } from 'react';
import { TemplatePreview } from './TemplatePreview';
import { NO_HINTS, type TemplateHints } from './template-complete';
import { checkTemplateJson, templateError } from './template-json';

/** What `{{…}}` completion may offer here: the endpoint's path parameters, the rule's saved vars. */
export const TemplateHintsContext = createContext<TemplateHints>(NO_HINTS);

const loadCodeEditor = () => import('./CodeEditor');
const CodeEditor = lazy(loadCodeEditor);
/** Starts fetching the editor's chunk before the first body editor needs it. */
export const preloadCodeEditor = (): void => void loadCodeEditor();

export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const t = contentType.split(';')[0].trim().toLowerCase();
  return t === 'application/json' || t.endsWith('+json') || t === 'text/json';
}

/** Checks JSON while tolerating template tags (template-json.ts). */
export const checkJson = checkTemplateJson;

interface Props {
  label: string;
  value: string;
  onChange: (v: string) => void;
  json: boolean;
  rows?: number;
  errors?: string[];
  placeholder?: string;
  hint?: string;
}

/**
 * A body editor: CodeMirror (JSON highlighting, `{{…}}` completion) once its chunk has loaded, a
 * monospace textarea until then; validates JSON (when `json`) and offers "Format".
 */
export function JsonEditor({ label, value, onChange, json, rows = 8, errors, placeholder, hint }: Props) {
  const id = useId();
  const hints = useContext(TemplateHintsContext);
  const check = json ? checkJson(value) : null;
  const syntax = templateError(value);
  const invalid = (check !== null && !check.ok) || syntax !== null;
  const describedBy: string[] = [];
  if (check) describedBy.push(`${id}-status`);
  if (syntax) describedBy.push(`${id}-syntax`);
  if (errors?.length) describedBy.push(`${id}-err`);
  return (
    <div className="field">
      <div className="field-row-head">
        <label htmlFor={id} id={`${id}-label`}>
          {label}
        </label>
        {json && (
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-label={`Format ${label.toLowerCase()} as JSON`}
            disabled={!check?.ok || !check.plain || value.trim() === ''}
            onClick={() => onChange(JSON.stringify(JSON.parse(value), null, 2))}
          >
            Format
          </button>
        )}
      </div>
      <Suspense
        fallback={
          <textarea
            id={id}
            className={`code${invalid ? ' invalid' : ''}`}
            rows={rows}
            spellCheck={false}
            value={value}
            placeholder={placeholder}
            aria-invalid={invalid || (errors?.length ?? 0) > 0}
            aria-describedby={describedBy.join(' ') || undefined}
            onChange={(e) => onChange(e.target.value)}
          />
        }
      >
        <CodeEditor
          value={value}
          onChange={onChange}
          json={json}
          rows={rows}
          labelId={`${id}-label`}
          describedBy={describedBy.join(' ') || undefined}
          invalid={invalid || (errors?.length ?? 0) > 0}
          placeholder={placeholder}
          hints={hints}
          problem={syntax}
        />
      </Suspense>
      {check && (
        <p id={`${id}-status`} className={`hint ${check.ok ? 'hint-ok' : 'hint-bad'}`}>
          {check.ok
            ? value.trim() === ''
              ? 'Empty body.'
              : check.plain
                ? 'Valid JSON.'
                : 'blocks' in check && check.blocks
                  ? 'A template with blocks: the preview checks the JSON it renders.'
                  : 'Valid JSON once template tags are filled in.'
            : `Invalid JSON: ${check.message}`}
        </p>
      )}
      {syntax && (
        <p id={`${id}-syntax`} className="hint hint-bad" role="alert">
          Template error at line {syntax.line}, column {syntax.column}: {syntax.message}
        </p>
      )}
      {hints.projectId && value.includes('{{') && (
        <TemplatePreview
          template={value}
          json={json}
          projectId={hints.projectId}
          method={hints.method}
          path={hints.path}
        />
      )}
      {hint && <p className="hint">{hint}</p>}
      {errors && errors.length > 0 && (
        <p id={`${id}-err`} className="field-error" role="alert">
          {errors.join(' ')}
        </p>
      )}
    </div>
  );
}
