import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AdminRole } from '../admin-accounts/admin.entity.ts';
import { AdminSessionRecord, type SessionStage } from './admin-session.entity.ts';

/**
 * Admin console sessions, kept in PostgreSQL so every process sees a sign-out at once. The cookie
 * holds a random token; the table holds only its SHA-256. A session ends after 30 idle minutes or
 * 12 hours whatever happens. `stage` is how far sign-in got: a password alone opens a `totp` or
 * `enrol` session that can do nothing but finish the second factor.
 */
export const SESSION_IDLE_MINUTES = 30;
export const SESSION_ABSOLUTE_HOURS = 12;
/** `last_seen_at` is written at most this often, not on every request. */
const TOUCH_AFTER_SECONDS = 60;

export type { SessionStage };

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

export interface AdminSession {
  tokenHash: string;
  csrfToken: string;
  stage: SessionStage;
  /** An enrolment in progress: the new secret, sealed (`totp-secrets.ts`). */
  pendingTotpSecretSealed: string | null;
  flash: Flash | null;
  /** `enrolmentCodeRequired`: a reset is pending, so the next enrolment needs the code it issued. */
  admin: { id: string; email: string; role: AdminRole; totpEnrolled: boolean; enrolmentCodeRequired: boolean };
}

const randomToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
export const hashSessionToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Opens a session and returns the token for the cookie (it is never stored). */
export async function openSession(
  em: EntityManager,
  adminId: string,
  stage: SessionStage,
  pendingTotpSecretSealed: string | null = null,
): Promise<string> {
  const token = randomToken();
  await em.insert(AdminSessionRecord, {
    tokenHash: hashSessionToken(token),
    admin: adminId,
    csrfToken: randomToken(),
    stage,
    pendingTotpSecret: pendingTotpSecretSealed,
    expiresAt: new Date(Date.now() + SESSION_ABSOLUTE_HOURS * 3_600_000),
  });
  // Ended sessions are swept as new ones open, so the table holds only live ones and a few stale.
  await em.nativeDelete(AdminSessionRecord, { $or: [{ expiresAt: { $lt: new Date() } }, { lastSeenAt: { $lt: idleSince() } }] });
  return token;
}

/** A session last seen before this has idled out. */
const idleSince = () => new Date(Date.now() - SESSION_IDLE_MINUTES * 60_000);

/** The live session a cookie names, or null when there is none, it expired or idled out, or its admin is disabled. */
export async function findSession(em: EntityManager, token: string | undefined): Promise<AdminSession | null> {
  if (!token || token.length > 100) return null;
  // Read past the identity map: the request's own reads of the admin must not see this copy.
  const row = await em.findOne(
    AdminSessionRecord,
    { tokenHash: hashSessionToken(token), expiresAt: { $gt: new Date() }, lastSeenAt: { $gt: idleSince() }, admin: { disabledAt: null } },
    { populate: ['admin'], disableIdentityMap: true },
  );
  if (!row) return null;
  if (Date.now() - row.lastSeenAt.getTime() >= TOUCH_AFTER_SECONDS * 1000) {
    await em.nativeUpdate(AdminSessionRecord, { tokenHash: row.tokenHash }, { lastSeenAt: new Date() });
  }
  const admin = row.admin;
  return {
    tokenHash: row.tokenHash,
    csrfToken: row.csrfToken,
    stage: row.stage,
    pendingTotpSecretSealed: row.pendingTotpSecret ?? null,
    flash: row.flash ? (JSON.parse(row.flash) as Flash) : null,
    admin: {
      id: admin.id,
      email: admin.email,
      role: admin.role,
      totpEnrolled: admin.totpSecret != null,
      enrolmentCodeRequired: admin.totpEnrolmentCodeHash != null,
    },
  };
}

export async function endSession(em: EntityManager, tokenHash: string): Promise<void> {
  await em.nativeDelete(AdminSessionRecord, { tokenHash });
}

/** Every session of an admin (second factor reset, account disabled). */
export async function endSessionsOf(em: EntityManager, adminId: string): Promise<void> {
  await em.nativeDelete(AdminSessionRecord, { admin: adminId });
}

export async function setPendingTotpSecret(em: EntityManager, tokenHash: string, sealedSecret: string | null): Promise<void> {
  await em.nativeUpdate(AdminSessionRecord, { tokenHash }, { pendingTotpSecret: sealedSecret });
}

/** A message for the next page this session renders (the redirect after a form post). */
export async function setFlash(em: EntityManager, tokenHash: string, flash: Flash): Promise<void> {
  await em.nativeUpdate(AdminSessionRecord, { tokenHash }, { flash: JSON.stringify(flash) });
}

export async function clearFlash(em: EntityManager, tokenHash: string): Promise<void> {
  await em.nativeUpdate(AdminSessionRecord, { tokenHash }, { flash: null });
}
