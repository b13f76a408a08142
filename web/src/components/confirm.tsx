import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from 'react';

interface ConfirmOptions {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  danger?: boolean;
}
type Confirm = (opts: ConfirmOptions) => Promise<boolean>;

const ConfirmContext = createContext<Confirm>(async () => false);

/** A promise-based confirmation built on <dialog>, which traps focus and closes on Escape. */
export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [opts, setOpts] = useState<ConfirmOptions | null>(null);
  const resolver = useRef<((ok: boolean) => void) | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);

  const confirm = useCallback<Confirm>((o) => {
    resolver.current?.(false);
    returnFocus.current = document.activeElement as HTMLElement | null;
    setOpts(o);
    return new Promise<boolean>((resolve) => {
      resolver.current = resolve;
    });
  }, []);

  useEffect(() => {
    const d = dialog.current;
    if (opts && d && !d.open) d.showModal();
  }, [opts]);

  const finish = (ok: boolean) => {
    resolver.current?.(ok);
    resolver.current = null;
    dialog.current?.close();
    setOpts(null);
    const el = returnFocus.current;
    if (el?.isConnected) el.focus();
  };

  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      {opts && (
        <dialog
          ref={dialog}
          className="dialog"
          aria-labelledby="confirm-title"
          onCancel={(e) => {
            e.preventDefault();
            finish(false);
          }}
        >
          <h2 id="confirm-title">{opts.title}</h2>
          <div className="dialog-body">{opts.message}</div>
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={() => finish(false)}>
              Cancel
            </button>
            <button
              type="button"
              className={opts.danger ? 'btn btn-danger' : 'btn btn-primary'}
              onClick={() => finish(true)}
            >
              {opts.confirmLabel}
            </button>
          </div>
        </dialog>
      )}
    </ConfirmContext.Provider>
  );
}

export const useConfirm = (): Confirm => useContext(ConfirmContext);
