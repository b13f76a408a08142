import { zipSync } from 'fflate';
import { type DragEvent, useId, useState } from 'react';
import { errorMessage } from '../api';

/** What a folder or zip import sends: a zip, and what it was made from. */
export interface Archive {
  name: string;
  blob: Blob;
  files: number;
}

const MAX_BYTES = 32 * 1024 * 1024;

/** Files (path → bytes) as one zip; dot-entries and node_modules are left out. */
function zipFiles(files: [string, Uint8Array][]): Blob {
  const kept = files.filter(([p]) => !p.split('/').some((s) => s.startsWith('.') || s === 'node_modules'));
  const total = kept.reduce((n, [, b]) => n + b.byteLength, 0);
  if (total > MAX_BYTES) throw new Error(`the folder holds ${(total / 1024 / 1024).toFixed(1)} MiB; at most 32 MiB`);
  const zipped = zipSync(Object.fromEntries(kept), { level: 6 });
  return new Blob([zipped], { type: 'application/zip' });
}

const bytesOf = async (f: File) => new Uint8Array(await f.arrayBuffer());

/** Every file under a dropped folder, with its path from the folder. */
async function readEntry(entry: FileSystemEntry, prefix: string, out: [string, Uint8Array][]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((ok, fail) => (entry as FileSystemFileEntry).file(ok, fail));
    out.push([`${prefix}${entry.name}`, await bytesOf(file)]);
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in batches until an empty one
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((ok, fail) => reader.readEntries(ok, fail));
    if (batch.length === 0) break;
    for (const e of batch) await readEntry(e, `${prefix}${entry.name}/`, out);
  }
}

/**
 * A folder (picked or dropped) or a `.zip`: WireMock mappings with `__files`, a Mockoon environment
 * with its files, an OpenAPI description split in files (docs/interop.md "Folders and zips").
 */
export function ArchiveInput({ value, onChange }: { value: Archive | null; onChange: (a: Archive | null) => void }) {
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  const [over, setOver] = useState(false);
  const take = async (make: () => Promise<Archive>) => {
    setError(null);
    try {
      onChange(await make());
    } catch (e) {
      setError(errorMessage(e));
      onChange(null);
    }
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const items = [...e.dataTransfer.items];
    const entries = items.map((i) => i.webkitGetAsEntry()).filter((x): x is FileSystemEntry => x !== null);
    const zip = [...e.dataTransfer.files].find((f) => /\.zip$/i.test(f.name));
    if (zip && entries.length === 1 && entries[0].isFile)
      return void take(async () => ({ name: zip.name, blob: zip, files: 1 }));
    void take(async () => {
      const files: [string, Uint8Array][] = [];
      for (const entry of entries) await readEntry(entry, '', files);
      if (files.length === 0) throw new Error('nothing to import in what was dropped');
      return { name: entries.map((x) => x.name).join(', '), blob: zipFiles(files), files: files.length };
    });
  };
  return (
    <div className="field">
      <fieldset
        className={`drop-zone${over ? ' drop-over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <legend className="field-label">Or a folder or a .zip</legend>
        <p className="muted small">Drop a folder or a .zip here, or pick one:</p>
        <div className="archive-pickers">
          <label htmlFor={`${id}-zip`}>A .zip</label>
          <input
            id={`${id}-zip`}
            type="file"
            accept=".zip,application/zip"
            className="file-input"
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void take(async () => ({ name: f.name, blob: f, files: 1 }));
            }}
          />
          <label htmlFor={`${id}-dir`}>A folder</label>
          <input
            id={`${id}-dir`}
            type="file"
            className="file-input"
            // a folder picker: every file under it, with its path
            {...{ webkitdirectory: '' }}
            onChange={(e) => {
              const list = [...(e.target.files ?? [])];
              if (list.length === 0) return;
              void take(async () => {
                const files: [string, Uint8Array][] = [];
                for (const f of list) files.push([f.webkitRelativePath || f.name, await bytesOf(f)]);
                const name = (list[0].webkitRelativePath || list[0].name).split('/')[0];
                return { name, blob: zipFiles(files), files: files.length };
              });
            }}
          />
        </div>
        {value && (
          <p className="hint">
            {value.name}
            {value.files > 1 ? ` (${value.files} files)` : ''} will be sent as a zip.{' '}
            <button type="button" className="btn btn-small" onClick={() => onChange(null)}>
              Clear
            </button>
          </p>
        )}
      </fieldset>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
