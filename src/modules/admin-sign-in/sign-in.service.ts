import { LockMode, type EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import { rawKey } from '../../lib/raw-keys.ts';
import { hashPassword } from '../../lib/password-hashing.ts';
import type { EncryptionKey } from '../../config.ts';
import { ApiError } from '../../http/problem.ts';
import { postgresAttemptReservations } from '../../http/attempt-reservations.ts';
import { networkOf } from '../../lib/ip-address.ts';
import { sameSecret } from '../../lib/constant-time.ts';
import { createSemaphore, SemaphoreFullError } from '../../lib/semaphore.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { Admin, type AdminRole } from '../admin-accounts/admin.entity.ts';
import { AdminSignInFailure } from './admin-session.entity.ts';
import { hashEnrolmentCode } from './enrolment-code.ts';
import {
  endSession,
  hashSessionToken,
  openSession,
  setFlash,
  setPendingTotpSecret,
  type AdminSession,
  type SessionStage,
} from './sessions.service.ts';
import { matchTotp, newTotpSecret } from './totp.ts';
import { openTotpSecret, sealTotpSecret } from './totp-secrets.ts';

/**
 * Signing in to the admin console: password (argon2id), then the TOTP code or, for an admin
 * without one where it is required, enrolment. Every password or code is checked only after an
 * attempt was reserved in PostgreSQL (shared by every process) against the budgets of this
 * account from this address and of this address (an IPv6 /64 counts as one); codes also against
 * the account's own budget, since only someone holding the password reaches them. A success gives
 * its attempt back, so only failures use a budget up: at most the limit is checked per minute
 * whatever the concurrency, and failures from one address never lock the owner out from another.
 * Verifications run at most two at a time per process, each ~160 ms of a core.
 */
export type SignInStep = 'password' | 'code';

export interface SignInGuard {
  /** Reserves one attempt, or throws 429 when a budget is spent; the returned function gives it back (after a success). */
  reserve(email: string, address: string, step: SignInStep): Promise<() => Promise<void>>;
  verifyPassword(password: string, hash: string): Promise<boolean>;
}

const budgetsOf = (email: string, address: string, step: SignInStep) => {
  const account = email.trim().toLowerCase();
  const network = networkOf(address);
  return [`account-address:${account}|${network}`, `address:${network}`, ...(step === 'code' ? [`account-code:${account}`] : [])];
};

export function createSignInGuard(orm: MikroORM, failuresPerMinute: number): SignInGuard {
  const attempts = postgresAttemptReservations(orm, 'admin-sign-in', failuresPerMinute);
  const hashing = createSemaphore(2, 64);
  return {
    async reserve(email, address, step) {
      const reservation = await attempts.reserve(budgetsOf(email, address, step));
      if (!reservation.reserved) {
        throw new ApiError(429, 'RATE_LIMITED', 'Too many failed sign-ins; wait a minute and try again', undefined, {
          'retry-after': String(reservation.retryAfterSeconds),
        });
      }
      return reservation.release;
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

/** Runs a check under a reserved attempt: a success (or an error that is not a failed check) gives the attempt back. */
async function underReservation<T>(release: () => Promise<void>, check: () => Promise<T>, succeeded: (result: T) => boolean): Promise<T> {
  let result: T;
  try {
    result = await check();
  } catch (error) {
    await release();
    throw error;
  }
  if (succeeded(result)) await release();
  return result;
}

/** Kept for the account's owner to see (when, from where, which step) for a month. */
async function recordFailure(em: EntityManager, adminId: string, address: string, step: SignInStep): Promise<void> {
  await em.insert(AdminSignInFailure, { adminId, address, step, failedAt: new Date() });
}

const refused = () => new ApiError(401, 'UNAUTHENTICATED', 'The e-mail address or password is wrong');

/** Verified against when the account does not exist, so timing does not tell which e-mails are admins. */
let decoyHash: Promise<string> | undefined;

/** Where a correct password leads: the code, enrolment (required in production), or straight in. */
export function stageAfterPassword(totpEnrolled: boolean, totpRequired: boolean): SessionStage {
  return totpEnrolled ? 'totp' : totpRequired ? 'enrol' : 'active';
}

/** Checks the password and opens a session at the stage that follows; returns the cookie's token. */
export async function signInWithPassword(
  em: EntityManager,
  guard: SignInGuard,
  keys: EncryptionKey[],
  input: { email: string; password: string; address: string; totpRequired: boolean },
): Promise<{ token: string; stage: SessionStage }> {
  const email = input.email.trim();
  const release = await guard.reserve(email, input.address, 'password');
  const { admin, valid } = await underReservation(
    release,
    async () => {
      // Past the identity map: a copy read here must not stand in for the request's later reads of the admin.
      const row = await em.findOne(Admin, { [rawKey('lower(email)')]: email.toLowerCase() }, { disableIdentityMap: true });
      decoyHash ??= hashPassword('decoy password for unknown accounts');
      return { admin: row ?? undefined, valid: await guard.verifyPassword(input.password.slice(0, 1024), row?.passwordHash ?? (await decoyHash)) };
    },
    (result) => result.valid && result.admin !== undefined,
  );
  if (!admin || !valid) {
    if (admin) await recordFailure(em, admin.id, input.address, 'password');
    throw refused();
  }
  // Said only to whoever knows the password: a guess learns nothing from it.
  if (admin.disabledAt) throw new ApiError(403, 'FORBIDDEN', 'This account is disabled. Ask an owner to enable it.');
  const stage = stageAfterPassword(admin.totpSecret != null, input.totpRequired);
  const token = await openSession(em, admin.id, stage, stage === 'enrol' ? sealTotpSecret(keys, newTotpSecret(), admin.id) : null);
  if (stage === 'active') await finishSignIn(em, admin, token);
  return { token, stage };
}

/** A completed sign-in: audited, and the admin told of failed attempts on their account since their last one. */
async function finishSignIn(em: EntityManager, admin: { id: string; role: AdminRole }, token: string): Promise<void> {
  await em.transactional(async (tx) => {
    recordAudit(tx, { label: `admin:${admin.id}`, role: admin.role }, { action: 'admin.sign-in', subjectType: 'admin', subjectId: admin.id });
    const previous = await tx.findOne(Admin, { id: admin.id }, { fields: ['lastSignInAt'], disableIdentityMap: true });
    await tx.nativeUpdate(Admin, { id: admin.id }, { lastSignInAt: new Date() });
    const failures = await tx.count(AdminSignInFailure, { adminId: admin.id, failedAt: { $gt: previous?.lastSignInAt ?? new Date(0) } });
    if (failures > 0) {
      await setFlash(tx, hashSessionToken(token), {
        kind: 'error',
        text: `${failures} failed sign-in ${failures === 1 ? 'attempt' : 'attempts'} on your account since your last sign-in; Your account lists when and from where.`,
      });
    }
    // Batch work: failures older than the month shown are swept as sign-ins happen (every admin's: some never sign in again).
    await tx.nativeDelete(AdminSignInFailure, { failedAt: { $lt: monthAgo() } });
  });
}

const monthAgo = () => new Date(Date.now() - 30 * 86_400_000);

/** The failed sign-ins of the last 30 days, newest first, for the account page. */
export async function recentFailures(em: EntityManager, adminId: string): Promise<{ address: string; step: SignInStep; failedAt: Date }[]> {
  const rows = await em.find(
    AdminSignInFailure,
    { adminId, failedAt: { $gt: monthAgo() } },
    { orderBy: { failedAt: 'desc', id: 'desc' }, limit: 50, disableIdentityMap: true },
  );
  return rows.map((row) => ({ address: row.address, step: row.step, failedAt: row.failedAt }));
}

const wrongCode = () =>
  new ApiError(400, 'VALIDATION_FAILED', 'The code is wrong or was already used; enter the current one', [
    { path: 'code', message: 'wrong or already used' },
  ]);

const wrongEnrolmentCode = () =>
  new ApiError(400, 'VALIDATION_FAILED', 'The enrolment code is missing or wrong; use the one the owner who reset your second factor gave you', [
    { path: 'enrolmentCode', message: 'missing or wrong' },
  ]);

/** What one attempt proved: the secret and the step its code matched, or which part was wrong. */
type FactorCheck = { ok: true; secret: string; step: number } | { ok: false; error: ApiError };

/**
 * Locks the admin's row and checks a code against `sealed` (their secret, or the pending one when
 * `enrolling`); enrolment after a reset also needs the reset's enrolment code.
 */
async function checkFactor(
  tx: EntityManager,
  keys: EncryptionKey[],
  admin: { id: string; role: AdminRole },
  sealed: string | null,
  input: { code: string; enrolmentCode?: string },
): Promise<FactorCheck> {
  const adminId = admin.id;
  // The row lock makes this the one attempt that may spend the code's time step.
  const row = await tx.findOne(Admin, { id: adminId, disabledAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, disableIdentityMap: true });
  const enrolling = sealed !== null;
  const stored = enrolling ? sealed : row?.totpSecret;
  if (!row || !stored) throw new ApiError(409, 'CONFLICT', 'Sign in again');
  if (enrolling && row.totpEnrolmentCodeHash != null) {
    if (row.totpEnrolmentCodeExpiresAt && row.totpEnrolmentCodeExpiresAt < new Date())
      throw new ApiError(409, 'CONFLICT', 'The enrolment code has expired; ask an owner to reset your second factor again');
    if (!sameSecret(row.totpEnrolmentCodeHash, hashEnrolmentCode(input.enrolmentCode ?? ''))) return { ok: false, error: wrongEnrolmentCode() };
  }
  const secret = openTotpSecret(keys, stored, adminId);
  const step = matchTotp(secret, input.code, row.totpLastStep ?? null);
  if (step === null) return { ok: false, error: wrongCode() };
  // Sealed afresh under the current key: a secret left in clear by an earlier version is sealed here too.
  await tx.nativeUpdate(
    Admin,
    { id: adminId },
    { totpSecret: sealTotpSecret(keys, secret, adminId), totpLastStep: step, totpEnrolmentCodeHash: null, totpEnrolmentCodeExpiresAt: null },
  );
  if (enrolling)
    recordAudit(tx, { label: `admin:${adminId}`, role: admin.role }, { action: 'admin.totp-enrol', subjectType: 'admin', subjectId: adminId });
  return { ok: true, secret, step };
}

/** A code attempt under a reservation; a wrong one is kept for the owner to see and thrown. */
async function attemptCode<T>(
  em: EntityManager,
  guard: SignInGuard,
  session: AdminSession,
  address: string,
  run: (tx: EntityManager) => Promise<{ check: FactorCheck; value: T }>,
): Promise<T> {
  const release = await guard.reserve(session.admin.email, address, 'code');
  const { check, value } = await underReservation(
    release,
    () => em.transactional(run),
    (result) => result.check.ok,
  );
  if (!check.ok) {
    await recordFailure(em, session.admin.id, address, 'code');
    throw check.error;
  }
  return value;
}

/**
 * Finishes a `totp` or `enrol` session with a code: the half-signed-in session is replaced by an
 * active one with a new token (the old one is never promoted). Wrong codes count as failures.
 */
export async function completeSecondFactor(
  em: EntityManager,
  guard: SignInGuard,
  keys: EncryptionKey[],
  session: AdminSession,
  input: { code: string; enrolmentCode?: string; address: string },
): Promise<string> {
  if (session.stage === 'active') throw new ApiError(409, 'CONFLICT', 'This session is already signed in');
  if (session.stage === 'enrol' && !session.pendingTotpSecretSealed) throw new ApiError(409, 'CONFLICT', 'Sign in again');
  const token = await attemptCode(em, guard, session, input.address, async (tx) => {
    const check = await checkFactor(tx, keys, session.admin, session.stage === 'enrol' ? session.pendingTotpSecretSealed : null, input);
    if (!check.ok) return { check, value: '' };
    await endSession(tx, session.tokenHash);
    return { check, value: await openSession(tx, session.admin.id, 'active') };
  });
  await finishSignIn(em, session.admin, token);
  return token;
}

/** Enrolment from the account page (optional outside production): the signed-in admin confirms a new secret. */
export async function confirmEnrolment(
  em: EntityManager,
  guard: SignInGuard,
  keys: EncryptionKey[],
  session: AdminSession,
  input: { code: string; enrolmentCode?: string; address: string },
): Promise<void> {
  const pending = session.pendingTotpSecretSealed;
  if (!pending) throw new ApiError(409, 'CONFLICT', 'Start the enrolment again');
  await attemptCode(em, guard, session, input.address, async (tx) => {
    const check = await checkFactor(tx, keys, session.admin, pending, input);
    if (check.ok) await setPendingTotpSecret(tx, session.tokenHash, null);
    return { check, value: undefined };
  });
}

export async function signOut(em: EntityManager, session: AdminSession): Promise<void> {
  await em.transactional(async (tx) => {
    await endSession(tx, session.tokenHash);
    recordAudit(
      tx,
      { label: `admin:${session.admin.id}`, role: session.admin.role },
      {
        action: 'admin.sign-out',
        subjectType: 'admin',
        subjectId: session.admin.id,
      },
    );
  });
}
