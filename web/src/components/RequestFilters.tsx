import type { Rule } from '../types';
import type { RequestFilters } from './inspect';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const STATUSES = ['2xx', '3xx', '4xx', '5xx'];

/** The live list's filters (method, status class, path text, rule, session); the page keeps them in its URL. */
export function RequestFilterBar({
  filters,
  onChange,
  sessions,
  rules,
}: {
  filters: RequestFilters;
  onChange: (f: RequestFilters) => void;
  sessions: string[];
  rules: Rule[];
}) {
  const set = (k: keyof RequestFilters, v: string) => {
    const next: RequestFilters = { ...filters };
    if (v) next[k] = v;
    else delete next[k];
    onChange(next);
  };
  const sessionOptions =
    filters.session && filters.session !== 'none' && !sessions.includes(filters.session)
      ? [filters.session, ...sessions]
      : sessions;
  return (
    <fieldset className="filter-bar">
      <legend className="sr-only">Filter requests</legend>
      <div className="inline-field">
        <label htmlFor="filter-method">Method</label>
        <select id="filter-method" value={filters.method ?? ''} onChange={(e) => set('method', e.target.value)}>
          <option value="">Any</option>
          {METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </div>
      <div className="inline-field">
        <label htmlFor="filter-status">Status</label>
        <select id="filter-status" value={filters.status ?? ''} onChange={(e) => set('status', e.target.value)}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      <div className="inline-field">
        <label htmlFor="filter-path">Path</label>
        <input
          id="filter-path"
          type="search"
          placeholder="contains…"
          value={filters.path ?? ''}
          onChange={(e) => set('path', e.target.value)}
        />
      </div>
      <div className="inline-field">
        <label htmlFor="filter-rule">Rule</label>
        <select id="filter-rule" value={filters.rule ?? ''} onChange={(e) => set('rule', e.target.value)}>
          <option value="">Any</option>
          <option value="none">No rule (default, proxy, 404)</option>
          {rules.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
      </div>
      <div className="inline-field">
        <label htmlFor="session-filter">Session</label>
        <select id="session-filter" value={filters.session ?? ''} onChange={(e) => set('session', e.target.value)}>
          <option value="">All requests</option>
          <option value="none">No session</option>
          {sessionOptions.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <label className="check inline-field">
        <input
          type="checkbox"
          checked={filters.violations === 'yes'}
          onChange={(e) => set('violations', e.target.checked ? 'yes' : '')}
        />
        Violations only
      </label>
      {filters.endpoint && (
        <span className="tag">
          One endpoint only{' '}
          <button type="button" className="btn btn-small btn-ghost" onClick={() => set('endpoint', '')}>
            Show all endpoints
          </button>
        </span>
      )}
      {Object.keys(filters).length > 0 && (
        <button type="button" className="btn btn-small btn-ghost" onClick={() => onChange({})}>
          Clear filters
        </button>
      )}
    </fieldset>
  );
}
