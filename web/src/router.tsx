import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

/** A tiny history-API router: `navigate()` pushes, `usePath()` re-renders on any change. */

const EVENT = 'mockyard:navigate';

function subscribe(cb: () => void): () => void {
  window.addEventListener('popstate', cb);
  window.addEventListener(EVENT, cb);
  return () => {
    window.removeEventListener('popstate', cb);
    window.removeEventListener(EVENT, cb);
  };
}

export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

export function navigate(to: string, opts: { replace?: boolean; keepScroll?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (opts.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(EVENT));
  if (!opts.keepScroll) window.scrollTo(0, 0);
}

export type Route =
  | { name: 'projects' }
  | { name: 'project'; projectId: string }
  | { name: 'endpoint'; projectId: string; endpointId: string }
  | { name: 'requests'; projectId: string }
  | { name: 'data'; projectId: string }
  | { name: 'contract'; projectId: string }
  | { name: 'keys' }
  | { name: 'agents' }
  | { name: 'notFound' };

export function matchRoute(path: string): Route {
  const p = path.replace(/\/+$/, '') || '/';
  if (p === '/' || p === '/projects') return { name: 'projects' };
  if (p === '/keys') return { name: 'keys' };
  if (p === '/agents') return { name: 'agents' };
  const parts = p.split('/').slice(1).map(decodeURIComponent);
  if (parts[0] !== 'projects' || !parts[1]) return { name: 'notFound' };
  const projectId = parts[1];
  if (parts.length === 2) return { name: 'project', projectId };
  if (parts.length === 3 && parts[2] === 'requests') return { name: 'requests', projectId };
  if (parts.length === 3 && parts[2] === 'data') return { name: 'data', projectId };
  if (parts.length === 3 && parts[2] === 'contract') return { name: 'contract', projectId };
  if (parts.length === 4 && parts[2] === 'endpoints' && parts[3]) {
    return { name: 'endpoint', projectId, endpointId: parts[3] };
  }
  return { name: 'notFound' };
}

export const paths = {
  projects: () => '/',
  project: (pid: string) => `/projects/${encodeURIComponent(pid)}`,
  endpoint: (pid: string, eid: string) => `/projects/${encodeURIComponent(pid)}/endpoints/${encodeURIComponent(eid)}`,
  requests: (pid: string) => `/projects/${encodeURIComponent(pid)}/requests`,
  data: (pid: string) => `/projects/${encodeURIComponent(pid)}/data`,
  contract: (pid: string) => `/projects/${encodeURIComponent(pid)}/contract`,
  keys: () => '/keys',
  agents: () => '/agents',
};

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={handle} {...rest} />;
}
