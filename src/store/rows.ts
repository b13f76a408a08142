/** Database rows → domain records (one mapper per table). */
import type { Selectable } from 'kysely';
import { DEFAULT_MODES, type ValidationModes } from '../domain/contract.js';
import type { Endpoint, HttpMethod, Plan, Project, RuleRecord, User } from '../domain/model.js';
import type { Trigger } from '../domain/sockets.js';
import type { Database } from './schema.js';

export type Row<T extends keyof Database> = Selectable<Database[T]>;

export interface UserWithHash extends User {
  passwordHash: string;
}

export const toProject = (r: Row<'projects'>): Project => ({
  id: r.id,
  name: r.name,
  fallbackUrl: r.fallback_url ?? null,
  recording: Boolean(r.recording),
  config: r.config ? (JSON.parse(r.config) as Record<string, string>) : {},
  validation: r.validation
    ? { ...DEFAULT_MODES, ...(JSON.parse(r.validation) as Partial<ValidationModes>) }
    : DEFAULT_MODES,
  slug: r.slug ?? '',
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toEndpoint = (r: Row<'endpoints'>): Endpoint => ({
  id: r.id,
  projectId: r.project_id,
  method: r.method as HttpMethod,
  path: r.path,
  statusCode: Number(r.status_code),
  responseBody: r.response_body,
  contentType: r.content_type,
  data: r.data ? JSON.parse(r.data) : null,
  headers: r.headers ? JSON.parse(r.headers) : {},
  validation: r.validation ? (JSON.parse(r.validation) as ValidationModes) : null,
  channels: r.channels ? (JSON.parse(r.channels) as string[]) : [],
  graphql: r.graphql ? JSON.parse(r.graphql) : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toRule = (r: Row<'rules'>, hits: number): RuleRecord => ({
  id: r.id,
  endpointId: r.endpoint_id,
  projectId: r.project_id,
  name: r.name,
  priority: Number(r.priority),
  active: r.active === true || r.active === 1,
  conditions: JSON.parse(r.conditions),
  response: r.response === null ? null : JSON.parse(r.response),
  actions: JSON.parse(r.actions),
  ...(r.trigger ? { on: r.trigger as Trigger } : {}),
  hits,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toUser = (r: Row<'users'>): UserWithHash => ({
  id: r.id,
  email: r.email,
  plan: r.plan as Plan,
  createdAt: r.created_at,
  passwordHash: r.password_hash,
});
