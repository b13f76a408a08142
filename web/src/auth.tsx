import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { ApiError, api, getToken, onUnauthorized, setToken } from './api';
import type { User } from './types';

interface AuthState {
  user: User | null;
  /** true while the stored token is being checked */
  checking: boolean;
  /** set when the session ended on its own (expired or revoked) */
  notice: string | null;
  signIn: (token: string, user: User) => void;
  signOut: () => Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null>(null);
  const [checking, setChecking] = useState(() => getToken() !== null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    if (!getToken()) return;
    const ctl = new AbortController();
    api
      .me(ctl.signal)
      .then((u) => setUser(u))
      .catch((err) => {
        if (ctl.signal.aborted) return;
        if (err instanceof ApiError && err.status === 401) setToken(null);
        else setNotice('Could not reach the server to restore your session.');
      })
      .finally(() => {
        if (!ctl.signal.aborted) setChecking(false);
      });
    return () => ctl.abort();
  }, []);

  useEffect(
    () =>
      onUnauthorized(() => {
        setToken(null);
        setUser((u) => {
          if (u) setNotice('Your session has ended. Please sign in again.');
          return null;
        });
      }),
    [],
  );

  const signIn = useCallback((token: string, u: User) => {
    setToken(token);
    setNotice(null);
    setUser(u);
  }, []);

  const signOut = useCallback(async () => {
    try {
      await api.logout();
    } catch {
      // the token is dropped locally either way
    }
    setToken(null);
    setUser(null);
  }, []);

  const value = useMemo(() => ({ user, checking, notice, signIn, signOut }), [user, checking, notice, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth outside AuthProvider');
  return ctx;
}
