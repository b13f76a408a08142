export type KvRow = { key: string; value: string };

export const toRows = (obj: Record<string, string> | undefined): KvRow[] =>
  Object.entries(obj ?? {}).map(([key, value]) => ({ key, value: String(value) }));

export const fromRows = (rows: KvRow[]): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const r of rows) if (r.key.trim()) out[r.key.trim()] = r.value;
  return out;
};

/** Header-style key/value rows with add and remove buttons. */
export function KeyValueEditor({
  label,
  rows,
  onChange,
  keyPlaceholder = 'Name',
  valuePlaceholder = 'Value',
  errors,
}: {
  label: string;
  rows: KvRow[];
  onChange: (rows: KvRow[]) => void;
  keyPlaceholder?: string;
  valuePlaceholder?: string;
  errors?: string[];
}) {
  const set = (i: number, patch: Partial<KvRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const dupes = new Set<string>();
  const seen = new Set<string>();
  for (const r of rows) {
    const k = r.key.trim().toLowerCase();
    if (k && seen.has(k)) dupes.add(k);
    seen.add(k);
  }
  return (
    <fieldset className="kv">
      <legend>{label}</legend>
      {rows.length === 0 && <p className="hint">None.</p>}
      {rows.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity beyond their position
        <div className="kv-row" key={i}>
          <input
            aria-label={`${label} ${i + 1} name`}
            placeholder={keyPlaceholder}
            value={r.key}
            onChange={(e) => set(i, { key: e.target.value })}
            aria-invalid={dupes.has(r.key.trim().toLowerCase())}
          />
          <input
            aria-label={`${label} ${i + 1} value`}
            placeholder={valuePlaceholder}
            value={r.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-label={`Remove ${label.toLowerCase()} ${i + 1}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
          >
            ✕
          </button>
        </div>
      ))}
      {dupes.size > 0 && <p className="field-error">Duplicate name: {[...dupes].join(', ')}</p>}
      {errors && errors.length > 0 && (
        <p className="field-error" role="alert">
          {errors.join(' ')}
        </p>
      )}
      <button type="button" className="btn btn-small" onClick={() => onChange([...rows, { key: '', value: '' }])}>
        + Add {label.toLowerCase().replace(/s$/, '')}
      </button>
    </fieldset>
  );
}
