/** A project's fields from a create or update body (docs/api.md "Projects"), with their checks. */
import { type ValidationModes, validationModes } from './contract.js';
import { AppError } from './errors.js';
import { LIMITS } from './model.js';
import { Problems } from './problems.js';

type Json = Record<string, unknown>;

export function projectName(raw: unknown, p = new Problems()): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (typeof raw !== 'string') p.add('/name', 'name is required and must be a string');
  else if (name.length < 1 || name.length > LIMITS.nameLength)
    p.add('/name', `name must be 1–${LIMITS.nameLength} characters after trimming`);
  return name;
}

export function fallbackUrl(raw: unknown, p: Problems): string | null {
  if (raw === null || raw === undefined || raw === '') return null;
  if (typeof raw !== 'string') {
    p.add('/fallbackUrl', 'fallbackUrl must be a string or null');
    return null;
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    p.add('/fallbackUrl', 'fallbackUrl must be an absolute http(s) URL');
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') p.add('/fallbackUrl', 'fallbackUrl must use http or https');
  return raw;
}

/** A DNS label (SECURITY.md): 1–63 of a-z, 0-9 and -, not starting or ending with -. */
export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export interface ProjectInput {
  name?: string;
  fallbackUrl?: string | null;
  slug?: string;
  recording?: boolean;
  config?: Record<string, string>;
  validation?: ValidationModes;
}

/** Config variables (docs/templates.md): names of [A-Za-z0-9_], at most 100, values at most 4 KiB. */
export const CONFIG_LIMITS = { names: 100, valueBytes: 4096 } as const;
const CONFIG_NAME = /^[A-Za-z0-9_]{1,100}$/;

function projectConfig(raw: unknown, p: Problems): Record<string, string> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    p.add('/config', 'config must be an object of names to text values');
    return {};
  }
  const entries = Object.entries(raw);
  if (entries.length > CONFIG_LIMITS.names) p.add('/config', `config holds at most ${CONFIG_LIMITS.names} variables`);
  const out: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (!CONFIG_NAME.test(k)) p.add(`/config/${k}`, 'config names are 1–100 of A-Z, a-z, 0-9 and _');
    else if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
      p.add(`/config/${k}`, 'config values are text');
    else if (Buffer.byteLength(String(v)) > CONFIG_LIMITS.valueBytes)
      p.add(`/config/${k}`, `config values are at most ${CONFIG_LIMITS.valueBytes} bytes`);
    else out[k] = String(v);
  }
  return out;
}

export function validateProject(body: Json, partial: boolean): ProjectInput {
  const p = new Problems();
  const out: ProjectInput = {};
  if (!partial || body.name !== undefined) out.name = projectName(body.name, p);
  if (body.fallbackUrl !== undefined) out.fallbackUrl = fallbackUrl(body.fallbackUrl, p);
  if (body.recording !== undefined) {
    if (typeof body.recording !== 'boolean') p.add('/recording', 'recording must be true or false');
    else out.recording = body.recording;
  }
  if (body.config !== undefined) out.config = projectConfig(body.config, p);
  if (body.validation !== undefined) {
    try {
      out.validation = validationModes(body.validation, '/validation');
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      for (const d of e.details ?? []) p.add(d.path, d.message);
    }
  }
  if (body.slug !== undefined) {
    if (typeof body.slug !== 'string' || !SLUG.test(body.slug))
      p.add('/slug', 'slug must be a DNS label: 1–63 of a-z, 0-9 and -, not starting or ending with -');
    else out.slug = body.slug;
  }
  p.throwIfAny();
  return out;
}
