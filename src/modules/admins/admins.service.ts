import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../../http/problem.ts';
import type { Logger } from '../../lib/logger.ts';
import { Admin, ADMIN_ROLES, type AdminRole } from './admin.entity.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import { endSessionsOf } from './sessions.service.ts';

export const MIN_PASSWORD_LENGTH = 12;

export async function createAdmin(
  em: EntityManager,
  input: { email: string; password: string; role?: AdminRole },
  actor?: Actor,
): Promise<Admin> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new ApiError(400, 'VALIDATION_FAILED', 'The e-mail address is not valid');
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new ApiError(400, 'VALIDATION_FAILED', `The password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const role = input.role ?? 'owner';
  if (!ADMIN_ROLES.includes(role)) throw new ApiError(400, 'VALIDATION_FAILED', `The role must be one of ${ADMIN_ROLES.join(', ')}`);
  const admin = em.create(Admin, {
    email,
    passwordHash: await Bun.password.hash(input.password, { algorithm: 'argon2id' }),
    role,
  });
  if (actor) {
    recordAudit(em, actor, { action: 'admin.create', subjectType: 'admin', subjectId: admin.id, after: { email, role } });
  }
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new ApiError(409, 'CONFLICT', 'An admin with this e-mail address exists');
    throw error;
  }
  return admin;
}

/**
 * First start in development: with no admin at all, create an owner and print its
 * credentials once, so the console can be opened without reading any docs.
 */
export async function ensureDevelopmentAdmin(em: EntityManager, logger: Logger): Promise<void> {
  if ((await em.count(Admin, {})) > 0) return;
  const password = Buffer.from(crypto.getRandomValues(new Uint8Array(15))).toString('base64url');
  const admin = await createAdmin(em, { email: 'admin@marketplace.local', password, role: 'owner' });
  logger.info('created the first admin account', { email: admin.email });
  process.stderr.write(
    `\n  First admin account (shown once): ${admin.email} / ${password}\n  Create more with: bun run cli admin:create --email E --password P\n\n`,
  );
}

export interface AdminSummary {
  id: string;
  email: string;
  role: AdminRole;
  totpEnrolled: boolean;
  createdAt: Date;
}

export async function listAdmins(em: EntityManager): Promise<AdminSummary[]> {
  const rows = await em.execute<{ id: string; email: string; role: AdminRole; totp_enrolled: boolean; created_at: string }[]>(
    'select id, email, role, totp_secret is not null as totp_enrolled, created_at from admins order by lower(email)',
  );
  return rows.map((row) => ({ id: row.id, email: row.email, role: row.role, totpEnrolled: row.totp_enrolled, createdAt: new Date(row.created_at) }));
}

/** Changes an admin's role (sessions follow at once: the role is read on every request). There is always an owner left. */
export async function setAdminRole(em: EntityManager, adminId: string, role: AdminRole, actor: Actor): Promise<void> {
  if (!ADMIN_ROLES.includes(role)) throw new ApiError(400, 'VALIDATION_FAILED', `The role must be one of ${ADMIN_ROLES.join(', ')}`);
  await em.transactional(async (tx) => {
    // Owners are locked together, so two owners demoting each other at once cannot both succeed.
    const owners = await tx.execute<{ id: string }[]>(`select id from admins where role = 'owner' for update`);
    const admin = await tx.findOne(Admin, { id: adminId });
    if (!admin) throw notFound('Admin');
    if (admin.role === role) return;
    if (admin.role === 'owner' && owners.length === 1) {
      throw new ApiError(409, 'CONFLICT', 'The last owner cannot be given another role; make someone else an owner first');
    }
    recordAudit(tx, actor, { action: 'admin.role', subjectType: 'admin', subjectId: admin.id, before: { role: admin.role }, after: { role } });
    admin.role = role;
  });
}

/** For a lost authenticator: the admin enrols again at the next sign-in (required in production); their sessions end. */
export async function resetSecondFactor(em: EntityManager, adminId: string, actor: Actor): Promise<void> {
  await em.transactional(async (tx) => {
    const admin = await tx.findOne(Admin, { id: adminId });
    if (!admin) throw notFound('Admin');
    admin.totpSecret = null;
    admin.totpLastStep = null;
    await endSessionsOf(tx, admin.id);
    recordAudit(tx, actor, { action: 'admin.totp-reset', subjectType: 'admin', subjectId: admin.id });
  });
}
