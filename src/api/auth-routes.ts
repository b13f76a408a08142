import type { FastifyInstance } from 'fastify';
import { AppError, validationError } from '../domain/errors.js';
import type { Plan } from '../domain/model.js';
import { dummyPasswordHash, hashPassword, hashToken, newToken, verifyPassword } from '../domain/passwords.js';
import { Credentials, LoginBody, PasswordChange, PlanBody, UserSchema } from '../domain/schemas.js';
import { type ApiDeps, caller, type Params } from './context.js';
import { RateLimiter, SharedRateLimiter } from './rate-limit.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function authRoutes(app: FastifyInstance, { store, config }: ApiDeps): void {
  // several processes on PostgreSQL count together in the database; one process counts in memory
  const shared = store.pgPool !== null;
  const limiter = (n: number) =>
    shared ? new SharedRateLimiter(store.attempts, n, 60_000) : new RateLimiter(n, 60_000);
  const perAddress = limiter(config.authRatePerMinute);
  const perEmail = limiter(Math.max(5, Math.floor(config.authRatePerMinute / 3)));
  if (shared) {
    const sweep = setInterval(() => void store.attempts.sweep().catch(() => {}), 60_000);
    sweep.unref();
    app.addHook('onClose', async () => clearInterval(sweep));
  }
  const limit = async (ip: string, email: unknown) => {
    // an address over its limit counts nothing more: its attempts neither fill the email table
    // nor touch the counters of the emails it names
    if (!(await perAddress.take(`ip:${ip}`))) throw new AppError('rate_limited');
    // keyed exactly as the account lookup keys it (trimmed, lower case): padding or case cannot
    // spread one account's attempts over several counters
    if (typeof email === 'string' && !(await perEmail.take(`email:${email.trim().toLowerCase()}`)))
      throw new AppError('rate_limited');
  };

  const issue = async (userId: string) => {
    const token = newToken();
    await store.loginTokens.create(hashToken(token), userId, new Date(Date.now() + config.sessionTtlHours * 3_600_000));
    return token;
  };

  app.post<{ Body: { email: string; password: string } }>(
    '/api/auth/register',
    {
      schema: { tags: ['auth'], summary: 'Create an account', body: Credentials, security: [] },
      config: { access: 'public' },
    },
    async (req, reply) => {
      await limit(req.ip, req.body.email);
      const email = req.body.email.trim();
      if (!EMAIL.test(email)) throw validationError([{ path: '/email', message: 'email must be an email address' }]);
      const user = await store.users.create(email, await hashPassword(req.body.password), config.defaultPlan);
      reply.code(201);
      return { token: await issue(user.id), user };
    },
  );

  app.post<{ Body: { email: string; password: string } }>(
    '/api/auth/login',
    { schema: { tags: ['auth'], summary: 'Sign in', body: LoginBody, security: [] }, config: { access: 'public' } },
    async (req) => {
      await limit(req.ip, req.body.email);
      const found = await store.users.findByEmail(req.body.email.trim());
      // The same work and the same answer for an unknown email and a wrong password.
      const ok = await verifyPassword(req.body.password, found?.passwordHash ?? (await dummyPasswordHash()));
      if (!found || !ok) throw new AppError('invalid_credentials');
      const { passwordHash: _omit, ...user } = found;
      return { token: await issue(user.id), user };
    },
  );

  app.post(
    '/api/auth/logout',
    { schema: { tags: ['auth'], summary: 'Revoke the presented token' } },
    async (req, reply) => {
      caller(req);
      if (req.tokenHash) await store.loginTokens.delete(req.tokenHash);
      reply.code(204).send();
    },
  );

  app.get(
    '/api/auth/me',
    { schema: { tags: ['auth'], summary: 'The caller', response: { 200: UserSchema } } },
    async (req) => caller(req),
  );

  app.put<{ Body: { oldPassword: string; newPassword: string } }>(
    '/api/auth/password',
    { schema: { tags: ['auth'], summary: 'Change the password; revokes every other session', body: PasswordChange } },
    async (req, reply) => {
      const me = caller(req);
      await limit(req.ip, me.email);
      const full = await store.users.getWithHash(me.id);
      if (!full || !(await verifyPassword(req.body.oldPassword, full.passwordHash)))
        throw new AppError('invalid_credentials');
      await store.users.setPassword(me.id, await hashPassword(req.body.newPassword));
      await store.loginTokens.deleteOthers(me.id, req.tokenHash ?? '');
      reply.code(204).send();
    },
  );

  // the admin API exists only with an admin token (src/api/guards.ts)
  if (!config.adminToken) return;
  app.patch<{ Params: Params<'userId'>; Body: { plan: Plan } }>(
    '/api/admin/users/:userId',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set a user’s plan (admin token)',
        body: PlanBody,
        response: { 200: UserSchema },
      },
      config: { access: 'admin' },
    },
    async (req) => {
      const user = await store.users.setPlan(req.params.userId, req.body.plan);
      if (!user) throw new AppError('not_found', 'No such user');
      return user;
    },
  );
}
