/**
 * What the egress will refuse, said when a rule is saved (issue 20): an `http_request` whose URL names
 * a loopback, private or otherwise blocked address, or `localhost`, that `MOCKYARD_ALLOW_TARGETS` does
 * not allow, is saved (the API's contract) but the answer carries a warning. URLs whose scheme or host
 * are templated cannot be judged before they render and get none; names are not resolved here.
 */
import net from 'node:net';
import type { Action } from '../domain/model.js';
import { effectivePort, hostKey, ipKey, isLocalhostName } from './egress-helpers.js';
import { isBlockedAddress } from './ip-ranges.js';

export interface SaveWarning {
  path: string;
  message: string;
}

/** `allowed`: the egress's own set of allowed targets (`allowSet`). */
export function blockedTargetWarnings(actions: Action[], allowed: ReadonlySet<string>): SaveWarning[] {
  const out: SaveWarning[] = [];
  actions.forEach((a, i) => {
    if (a.type !== 'http_request') return;
    const head = /^[^/]*\/\/[^/?#]*/.exec(a.url)?.[0] ?? a.url;
    if (head.includes('{{')) return;
    let url: URL;
    try {
      url = new URL(a.url);
    } catch {
      return;
    }
    const at = `/actions/${i}/url`;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      out.push({ path: at, message: `${url.protocol} is not allowed: only http and https targets are called` });
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = effectivePort(url);
    const key = net.isIP(host) ? ipKey(host, port) : hostKey(host.toLowerCase(), port);
    if (allowed.has(key)) return;
    if ((net.isIP(host) && isBlockedAddress(host)) || isLocalhostName(host.toLowerCase()))
      out.push({
        path: at,
        message: `${url.host} is a loopback or private address: the call will be blocked unless MOCKYARD_ALLOW_TARGETS lists ${key}`,
      });
  });
  return out;
}
