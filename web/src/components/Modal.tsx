import { type ReactNode, useEffect, useId, useRef } from 'react';

/**
 * A modal <dialog> (focus stays inside, Escape closes), open while mounted. Focus goes back to the
 * element that opened it.
 */
export function Modal({
  title,
  onClose,
  children,
  wide = false,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => {
      d?.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog${wide ? ' dialog-wide' : ''}`}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="btn btn-icon btn-ghost" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      {children}
    </dialog>
  );
}

/** The Cancel and submit buttons of a form in a Modal; the submit button is disabled while busy. */
export function FormActions({
  onCancel,
  label,
  busyLabel,
  busy,
}: {
  onCancel: () => void;
  label: string;
  busyLabel: string;
  busy: boolean;
}) {
  return (
    <div className="dialog-actions">
      <button type="button" className="btn" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="btn btn-primary" disabled={busy}>
        {busy ? busyLabel : label}
      </button>
    </div>
  );
}
