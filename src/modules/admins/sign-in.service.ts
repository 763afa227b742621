import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../http/problem.ts';
import { postgresRateLimiter } from '../../http/rate-limit.ts';
import { createSemaphore, SemaphoreFullError } from '../../lib/semaphore.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { AdminRole } from './admin.entity.ts';
import { endSession, openSession, type AdminSession, type SessionStage } from './sessions.service.ts';
import { matchTotp, newTotpSecret } from './totp.ts';

/**
 * Signing in to the admin console: password (argon2id), then the TOTP code or, for an admin
 * without one where it is required, enrolment. Failures are counted per account and per address
 * in PostgreSQL (shared by every process); once the limit is reached within a minute the next
 * attempt is refused before any password or code is checked. Verifications run at most two at a
 * time per process, each ~160 ms of a core, so a flood of sign-ins cannot starve the API.
 */
export interface SignInGuard {
  /** Throws 429 when the account or the address has used up its failures for this minute. */
  assertAllowed(email: string, address: string): Promise<void>;
  recordFailure(email: string, address: string): Promise<void>;
  verifyPassword(password: string, hash: string): Promise<boolean>;
}

const keysOf = (email: string, address: string) => [`account:${email.trim().toLowerCase()}`, `address:${address}`];

export function createSignInGuard(orm: MikroORM, failuresPerMinute: number): SignInGuard {
  const failures = postgresRateLimiter(orm, 'admin-sign-in', failuresPerMinute);
  const hashing = createSemaphore(2, 64);
  return {
    async assertAllowed(email, address) {
      if (failuresPerMinute <= 0) return;
      for (const key of keysOf(email, address)) {
        const count = await failures.peek(key);
        if (count.remaining <= 0) {
          throw new ApiError(429, 'RATE_LIMITED', 'Too many failed sign-ins; wait a minute and try again', undefined, {
            'retry-after': String(count.reset),
          });
        }
      }
    },
    async recordFailure(email, address) {
      if (failuresPerMinute <= 0) return;
      for (const key of keysOf(email, address)) await failures.hit(key);
    },
    async verifyPassword(password, hash) {
      try {
        return await hashing.run(() => Bun.password.verify(password, hash));
      } catch (error) {
        if (error instanceof SemaphoreFullError) {
          throw new ApiError(429, 'RATE_LIMITED', 'Too many sign-ins at once; try again in a moment', undefined, { 'retry-after': '1' });
        }
        throw error;
      }
    },
  };
}

const refused = () => new ApiError(401, 'UNAUTHENTICATED', 'The e-mail address or password is wrong');

/** Verified against when the account does not exist, so timing does not tell which e-mails are admins. */
let decoyHash: Promise<string> | undefined;

interface AdminRow {
  id: string;
  email: string;
  role: AdminRole;
  password_hash: string;
  totp_secret: string | null;
}

/** Where a correct password leads: the code, enrolment (required in production), or straight in. */
export function stageAfterPassword(totpEnrolled: boolean, totpRequired: boolean): SessionStage {
  return totpEnrolled ? 'totp' : totpRequired ? 'enrol' : 'active';
}

/** Checks the password and opens a session at the stage that follows; returns the cookie's token. */
export async function signInWithPassword(
  em: EntityManager,
  guard: SignInGuard,
  input: { email: string; password: string; address: string; totpRequired: boolean },
): Promise<{ token: string; stage: SessionStage }> {
  const email = input.email.trim();
  await guard.assertAllowed(email, input.address);
  const [admin] = await em.execute<AdminRow[]>(
    'select id, email, role, password_hash, totp_secret from admins where lower(email) = lower(?)',
    [email],
  );
  decoyHash ??= Bun.password.hash('decoy password for unknown accounts', { algorithm: 'argon2id' });
  const valid = await guard.verifyPassword(input.password.slice(0, 1024), admin?.password_hash ?? (await decoyHash));
  if (!admin || !valid) {
    await guard.recordFailure(email, input.address);
    throw refused();
  }
  const stage = stageAfterPassword(admin.totp_secret !== null, input.totpRequired);
  const token = await openSession(em, admin.id, stage, stage === 'enrol' ? newTotpSecret() : null);
  if (stage === 'active') await auditSignIn(em, admin);
  return { token, stage };
}

async function auditSignIn(em: EntityManager, admin: { id: string; role: AdminRole }): Promise<void> {
  recordAudit(em, { label: `admin:${admin.id}`, role: admin.role }, { action: 'admin.sign-in', subjectType: 'admin', subjectId: admin.id });
  await em.flush();
}

const wrongCode = () =>
  new ApiError(400, 'VALIDATION_FAILED', 'The code is wrong or was already used; enter the current one', [
    { path: 'code', message: 'wrong or already used' },
  ]);

/**
 * Finishes a `totp` or `enrol` session with a code: the half-signed-in session is replaced by an
 * active one with a new token (the old one is never promoted). Wrong codes count as failures.
 */
export async function completeSecondFactor(
  em: EntityManager,
  guard: SignInGuard,
  session: AdminSession,
  input: { code: string; address: string },
): Promise<string> {
  if (session.stage === 'active') throw new ApiError(409, 'CONFLICT', 'This session is already signed in');
  await guard.assertAllowed(session.admin.email, input.address);
  const token = await em.transactional(async (tx) => {
    const [admin] = await tx.execute<{ totp_secret: string | null; totp_last_step: string | null }[]>(
      'select totp_secret, totp_last_step from admins where id = ? for update',
      [session.admin.id],
    );
    const secret = session.stage === 'enrol' ? session.pendingTotpSecret : admin?.totp_secret;
    if (!admin || !secret) throw new ApiError(409, 'CONFLICT', 'Sign in again');
    const step = matchTotp(secret, input.code, admin.totp_last_step === null ? null : Number(admin.totp_last_step));
    if (step === null) return null;
    await tx.execute('update admins set totp_secret = ?, totp_last_step = ? where id = ?', [secret, step, session.admin.id]);
    if (session.stage === 'enrol') {
      recordAudit(tx, { label: `admin:${session.admin.id}`, role: session.admin.role }, {
        action: 'admin.totp-enrol',
        subjectType: 'admin',
        subjectId: session.admin.id,
      });
    }
    await endSession(tx, session.tokenHash);
    return openSession(tx, session.admin.id, 'active');
  });
  if (token === null) {
    await guard.recordFailure(session.admin.email, input.address);
    throw wrongCode();
  }
  await auditSignIn(em, session.admin);
  return token;
}

/** Enrolment from the account page (optional outside production): the signed-in admin confirms a new secret. */
export async function confirmEnrolment(
  em: EntityManager,
  guard: SignInGuard,
  session: AdminSession,
  input: { code: string; address: string },
): Promise<void> {
  await guard.assertAllowed(session.admin.email, input.address);
  const secret = session.pendingTotpSecret;
  if (!secret) throw new ApiError(409, 'CONFLICT', 'Start the enrolment again');
  const step = matchTotp(secret, input.code, null);
  if (step === null) {
    await guard.recordFailure(session.admin.email, input.address);
    throw wrongCode();
  }
  await em.transactional(async (tx) => {
    await tx.execute('update admins set totp_secret = ?, totp_last_step = ? where id = ?', [secret, step, session.admin.id]);
    await tx.execute('update admin_sessions set pending_totp_secret = null where token_hash = ?', [session.tokenHash]);
    recordAudit(tx, { label: `admin:${session.admin.id}`, role: session.admin.role }, {
      action: 'admin.totp-enrol',
      subjectType: 'admin',
      subjectId: session.admin.id,
    });
  });
}

export async function signOut(em: EntityManager, session: AdminSession): Promise<void> {
  await em.transactional(async (tx) => {
    await endSession(tx, session.tokenHash);
    recordAudit(tx, { label: `admin:${session.admin.id}`, role: session.admin.role }, {
      action: 'admin.sign-out',
      subjectType: 'admin',
      subjectId: session.admin.id,
    });
  });
}
