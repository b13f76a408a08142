import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, errorMessage } from '../api';
import { useAuth } from '../auth';
import { startSample } from '../components/SampleProject';
import { FieldError } from '../components/ui';
import { anchorErrors } from '../hooks';

export function AuthPage() {
  const { signIn, notice } = useAuth();
  const [mode, setMode] = useState<'login' | 'register'>('login');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);

  useEffect(() => {
    document.title = mode === 'login' ? 'Sign in · Mockyard' : 'Create account · Mockyard';
  }, [mode]);

  const fieldErrors = anchorErrors(error instanceof ApiError ? error.details : [], ['/email', '/password']);
  const tooShort = mode === 'register' && password.length > 0 && password.length < 8;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (tooShort) return;
    setBusy(true);
    setError(null);
    try {
      const res = mode === 'login' ? await api.login(email, password) : await api.register(email, password);
      signIn(res.token, res.user);
      // a new account starts on the sample project, with a first mock to call (docs/api.md "Presets")
      if (mode === 'register') {
        try {
          await startSample();
        } catch {
          // the projects page offers it again
        }
      }
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };

  const general =
    error &&
    (error instanceof ApiError && error.details.length > 0 && !fieldErrors.get('')
      ? null
      : error instanceof ApiError && error.code === 'conflict'
        ? 'An account with this email already exists. Sign in instead?'
        : errorMessage(error));

  return (
    <div className="auth">
      <section className="auth-intro">
        <h1>Mock APIs in minutes.</h1>
        <p>
          Mockyard serves fake HTTP endpoints for your front end, tests and demos: rules that answer by header, query or
          body, response sequences, delays, faults and webhooks — with every request visible live.
        </p>
        <ul className="auth-points">
          <li>Projects get their own mock URL</li>
          <li>Rules with conditions and step sequences</li>
          <li>Live request log with match explanations</li>
        </ul>
      </section>
      <section className="card auth-card" aria-labelledby="auth-title">
        <fieldset className="segmented">
          <legend className="sr-only">Sign in or sign up</legend>
          <button type="button" aria-pressed={mode === 'login'} onClick={() => setMode('login')}>
            Sign in
          </button>
          <button type="button" aria-pressed={mode === 'register'} onClick={() => setMode('register')}>
            Sign up
          </button>
        </fieldset>
        <h2 id="auth-title">{mode === 'login' ? 'Welcome back' : 'Create your account'}</h2>
        {notice && <p className="banner banner-info">{notice}</p>}
        <form onSubmit={submit} noValidate={false}>
          <div className="field">
            <label htmlFor="auth-email">Email</label>
            <input
              id="auth-email"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
            <FieldError messages={fieldErrors.get('/email')} />
          </div>
          <div className="field">
            <label htmlFor="auth-password">Password</label>
            <input
              id="auth-password"
              type="password"
              autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
              required
              minLength={mode === 'register' ? 8 : undefined}
              value={password}
              aria-describedby={mode === 'register' ? 'auth-password-hint' : undefined}
              aria-invalid={tooShort}
              onChange={(e) => setPassword(e.target.value)}
            />
            {mode === 'register' && (
              <p id="auth-password-hint" className={`hint${tooShort ? ' hint-bad' : ''}`}>
                At least 8 characters.
              </p>
            )}
            <FieldError messages={fieldErrors.get('/password')} />
          </div>
          {general && (
            <p className="field-error" role="alert">
              {general}
            </p>
          )}
          <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
            {busy ? 'Please wait…' : mode === 'login' ? 'Sign in' : 'Create account'}
          </button>
        </form>
        <p className="hint center">New accounts start on the Free plan: 3 rules per endpoint (Pro 15, Business 25).</p>
      </section>
    </div>
  );
}
