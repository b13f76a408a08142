import { createContext, type ReactNode, useCallback, useContext, useRef, useState } from 'react';

type Toast = (message: string) => void;
const ToastContext = createContext<Toast>(() => {});

export function ToastProvider({ children }: { children: ReactNode }) {
  const [messages, setMessages] = useState<{ id: number; text: string }[]>([]);
  const next = useRef(1);
  const toast = useCallback((text: string) => {
    const id = next.current++;
    setMessages((m) => [...m.slice(-2), { id, text }]);
    window.setTimeout(() => setMessages((m) => m.filter((x) => x.id !== id)), 3000);
  }, []);
  return (
    <ToastContext.Provider value={toast}>
      {children}
      <div className="toasts" aria-live="polite">
        {messages.map((m) => (
          <div key={m.id} className="toast">
            {m.text}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export const useToast = (): Toast => useContext(ToastContext);
