import { LockMode, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { rawKey } from '../../lib/raw-keys.ts';
import { hashPassword } from '../../lib/password-hashing.ts';
import { ApiError, notFound } from '../../http/problem.ts';
import type { Logger } from '../../lib/logger.ts';
import { Admin, ADMIN_ROLES, type AdminRole } from './admin.entity.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import { endSessionsOf } from '../admin-sign-in/sessions.service.ts';
import { ENROLMENT_CODE_HOURS, hashEnrolmentCode, newEnrolmentCode } from '../admin-sign-in/enrolment-code.ts';
import type { AdminSummary } from '../../../views/admin/admins.ts';
export type { AdminSummary } from '../../../views/admin/admins.ts';

export const MIN_PASSWORD_LENGTH = 12;

export async function createAdmin(em: EntityManager, input: { email: string; password: string; role?: AdminRole }, actor?: Actor): Promise<Admin> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new ApiError(400, 'VALIDATION_FAILED', 'The e-mail address is not valid');
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new ApiError(400, 'VALIDATION_FAILED', `The password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const role = input.role ?? 'owner';
  if (!ADMIN_ROLES.includes(role)) throw new ApiError(400, 'VALIDATION_FAILED', `The role must be one of ${ADMIN_ROLES.join(', ')}`);
  const admin = em.create(Admin, {
    email,
    passwordHash: await hashPassword(input.password),
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

export async function listAdmins(em: EntityManager): Promise<AdminSummary[]> {
  const admins = await em.find(Admin, {}, { orderBy: { [rawKey('lower(email)')]: 'asc' }, disableIdentityMap: true });
  return admins.map((admin) => ({
    id: admin.id,
    email: admin.email,
    role: admin.role,
    totpEnrolled: admin.totpSecret != null,
    disabled: admin.disabledAt != null,
    createdAt: admin.createdAt,
  }));
}

/** Locks every owner row (so two owners acting on each other at once cannot both succeed) and returns the enabled ones. */
async function lockOwners(tx: EntityManager): Promise<string[]> {
  const owners = await tx.find(Admin, { role: 'owner' }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  return owners.filter((owner) => owner.disabledAt == null).map((owner) => owner.id);
}

/** Changes an admin's role (sessions follow at once: the role is read on every request). There is always an owner left. */
export async function setAdminRole(em: EntityManager, adminId: string, role: AdminRole, actor: Actor): Promise<void> {
  if (!ADMIN_ROLES.includes(role)) throw new ApiError(400, 'VALIDATION_FAILED', `The role must be one of ${ADMIN_ROLES.join(', ')}`);
  await em.transactional(async (tx) => {
    const owners = await lockOwners(tx);
    const admin = await tx.findOne(Admin, { id: adminId });
    if (!admin) throw notFound('Admin');
    if (admin.role === role) return;
    if (admin.role === 'owner' && owners.length === 1 && owners[0] === admin.id) {
      throw new ApiError(409, 'CONFLICT', 'The last owner cannot be given another role; make someone else an owner first');
    }
    recordAudit(tx, actor, { action: 'admin.role', subjectType: 'admin', subjectId: admin.id, before: { role: admin.role }, after: { role } });
    admin.role = role;
  });
}

/**
 * For a lost authenticator: the admin enrols again at the next sign-in (required in production),
 * which then needs the one-time enrolment code returned here (shown once, to the owner who reset
 * it), so the password alone cannot enrol anyone's authenticator. Their sessions end.
 */
export async function resetSecondFactor(em: EntityManager, adminId: string, actor: Actor): Promise<{ email: string; enrolmentCode: string }> {
  const enrolmentCode = newEnrolmentCode();
  const email = await em.transactional(async (tx) => {
    const admin = await tx.findOne(Admin, { id: adminId });
    if (!admin) throw notFound('Admin');
    admin.totpSecret = null;
    admin.totpLastStep = null;
    admin.totpEnrolmentCodeHash = hashEnrolmentCode(enrolmentCode);
    admin.totpEnrolmentCodeExpiresAt = new Date(Date.now() + ENROLMENT_CODE_HOURS * 3_600_000);
    await endSessionsOf(tx, admin.id);
    recordAudit(tx, actor, { action: 'admin.totp-reset', subjectType: 'admin', subjectId: admin.id });
    return admin.email;
  });
  return { email, enrolmentCode };
}

/** The admin an e-mail address names (any case), for the CLI. */
export async function adminIdByEmail(em: EntityManager, email: string): Promise<string> {
  const admin = await em.findOne(Admin, { [rawKey('lower(email)')]: email.trim().toLowerCase() }, { disableIdentityMap: true });
  if (!admin) throw notFound('Admin');
  return admin.id;
}

/**
 * Disables an admin: their sessions end at once and sign-in is refused until an owner enables
 * them again. Nobody disables themselves, and there is always an enabled owner left.
 */
export async function disableAdmin(em: EntityManager, adminId: string, actor: Actor): Promise<{ email: string }> {
  if (actor.label === `admin:${adminId}`) throw new ApiError(409, 'CONFLICT', 'You cannot disable your own account');
  return em.transactional(async (tx) => {
    const owners = await lockOwners(tx);
    const admin = await tx.findOne(Admin, { id: adminId });
    if (!admin) throw notFound('Admin');
    if (admin.disabledAt) return { email: admin.email };
    if (owners.length === 1 && owners[0] === admin.id)
      throw new ApiError(409, 'CONFLICT', 'The last enabled owner cannot be disabled; make someone else an owner first');
    admin.disabledAt = new Date();
    await endSessionsOf(tx, admin.id);
    recordAudit(tx, actor, { action: 'admin.disable', subjectType: 'admin', subjectId: admin.id });
    return { email: admin.email };
  });
}

export async function enableAdmin(em: EntityManager, adminId: string, actor: Actor): Promise<void> {
  await em.transactional(async (tx) => {
    const admin = await tx.findOne(Admin, { id: adminId });
    if (!admin) throw notFound('Admin');
    if (!admin.disabledAt) return;
    admin.disabledAt = null;
    recordAudit(tx, actor, { action: 'admin.enable', subjectType: 'admin', subjectId: admin.id });
  });
}
