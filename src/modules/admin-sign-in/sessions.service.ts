import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AdminRole } from '../admin-accounts/admin.entity.ts';

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

export type SessionStage = 'totp' | 'enrol' | 'active';

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
  await em.execute(
    `insert into admin_sessions (token_hash, admin_id, csrf_token, stage, pending_totp_secret, expires_at)
     values (?, ?, ?, ?, ?, now() + make_interval(hours => ?))`,
    [hashSessionToken(token), adminId, randomToken(), stage, pendingTotpSecretSealed, SESSION_ABSOLUTE_HOURS],
  );
  // Ended sessions are swept as new ones open, so the table holds only live ones and a few stale.
  await em.execute(`delete from admin_sessions where expires_at < now() or last_seen_at < now() - make_interval(mins => ?)`, [SESSION_IDLE_MINUTES]);
  return token;
}

interface SessionRow {
  token_hash: string;
  csrf_token: string;
  stage: SessionStage;
  pending_totp_secret: string | null;
  flash: string | null;
  seen_seconds_ago: number;
  admin_id: string;
  email: string;
  role: AdminRole;
  totp_enrolled: boolean;
  enrolment_code_required: boolean;
}

/** The live session a cookie names, or null when there is none, it expired or idled out, or its admin is disabled. */
export async function findSession(em: EntityManager, token: string | undefined): Promise<AdminSession | null> {
  if (!token || token.length > 100) return null;
  const [row] = await em.execute<SessionRow[]>(
    `select s.token_hash, s.csrf_token, s.stage, s.pending_totp_secret, s.flash,
            extract(epoch from now() - s.last_seen_at)::int as seen_seconds_ago,
            a.id as admin_id, a.email, a.role, a.totp_secret is not null as totp_enrolled,
            a.totp_enrolment_code_hash is not null as enrolment_code_required
     from admin_sessions s join admins a on a.id = s.admin_id
     where s.token_hash = ? and s.expires_at > now() and s.last_seen_at > now() - make_interval(mins => ?)
       and a.disabled_at is null`,
    [hashSessionToken(token), SESSION_IDLE_MINUTES],
  );
  if (!row) return null;
  if (row.seen_seconds_ago >= TOUCH_AFTER_SECONDS) {
    await em.execute('update admin_sessions set last_seen_at = now() where token_hash = ?', [row.token_hash]);
  }
  return {
    tokenHash: row.token_hash,
    csrfToken: row.csrf_token,
    stage: row.stage,
    pendingTotpSecretSealed: row.pending_totp_secret,
    flash: row.flash ? (JSON.parse(row.flash) as Flash) : null,
    admin: {
      id: row.admin_id,
      email: row.email,
      role: row.role,
      totpEnrolled: row.totp_enrolled,
      enrolmentCodeRequired: row.enrolment_code_required,
    },
  };
}

export async function endSession(em: EntityManager, tokenHash: string): Promise<void> {
  await em.execute('delete from admin_sessions where token_hash = ?', [tokenHash]);
}

/** Every session of an admin (second factor reset, account disabled). */
export async function endSessionsOf(em: EntityManager, adminId: string): Promise<void> {
  await em.execute('delete from admin_sessions where admin_id = ?', [adminId]);
}

export async function setPendingTotpSecret(em: EntityManager, tokenHash: string, sealedSecret: string | null): Promise<void> {
  await em.execute('update admin_sessions set pending_totp_secret = ? where token_hash = ?', [sealedSecret, tokenHash]);
}

/** A message for the next page this session renders (the redirect after a form post). */
export async function setFlash(em: EntityManager, tokenHash: string, flash: Flash): Promise<void> {
  await em.execute('update admin_sessions set flash = ? where token_hash = ?', [JSON.stringify(flash), tokenHash]);
}

export async function clearFlash(em: EntityManager, tokenHash: string): Promise<void> {
  await em.execute('update admin_sessions set flash = null where token_hash = ?', [tokenHash]);
}
