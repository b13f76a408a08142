import { useId, useState } from 'react';
import { ApiError, errorMessage } from '../api';

/** Pick a file or paste its text: the file's text lands in the text area, where it can be checked. */
export function DocumentInput({
  fileLabel,
  textLabel,
  accept,
  value,
  onChange,
  placeholder,
  hint,
}: {
  fileLabel: string;
  textLabel: string;
  accept: string;
  value: string;
  onChange: (text: string) => void;
  placeholder?: string;
  hint?: string;
}) {
  const id = useId();
  const [fileError, setFileError] = useState<string | null>(null);
  const [fileName, setFileName] = useState<string | null>(null);
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-file`}>{fileLabel}</label>
        <input
          id={`${id}-file`}
          type="file"
          className="file-input"
          accept={accept}
          onChange={async (e) => {
            const file = e.target.files?.[0];
            setFileError(null);
            if (!file) return;
            if (file.size > 1024 * 1024) {
              setFileError(`${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MiB; at most 1 MiB is accepted.`);
              return;
            }
            try {
              onChange(await file.text());
              setFileName(file.name);
            } catch (err) {
              setFileError(`Could not read ${file.name}: ${errorMessage(err)}`);
            }
          }}
        />
        {fileError && (
          <p className="field-error" role="alert">
            {fileError}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${id}-text`}>{textLabel}</label>
        <textarea
          id={`${id}-text`}
          className="code"
          rows={9}
          spellCheck={false}
          value={value}
          placeholder={placeholder}
          aria-describedby={`${id}-hint`}
          onChange={(e) => {
            setFileName(null);
            onChange(e.target.value);
          }}
        />
        <p className="hint" id={`${id}-hint`}>
          {fileName ? `From ${fileName}. ` : ''}
          {hint}
        </p>
      </div>
    </>
  );
}

/** An API error with its `details[]` (each a path in the document and a message). */
export function ErrorDetails({ error }: { error: unknown }) {
  const details = error instanceof ApiError ? error.details : [];
  return (
    <div className="banner banner-error banner-block" role="alert">
      <p>{errorMessage(error)}</p>
      {details.length > 0 && (
        <ul className="detail-list">
          {details.slice(0, 20).map((d, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: details have no id
            <li key={i}>
              {d.path.length > 1 && <code>{d.path}</code>} {d.message}
            </li>
          ))}
          {details.length > 20 && <li>… and {details.length - 20} more</li>}
        </ul>
      )}
    </div>
  );
}
