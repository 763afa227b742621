import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../http/problem.ts';
import type { Logger } from '../../lib/logger.ts';
import { Admin, ADMIN_ROLES, type AdminRole } from './admin.entity.ts';

export const MIN_PASSWORD_LENGTH = 12;

export async function createAdmin(
  em: EntityManager,
  input: { email: string; password: string; role?: AdminRole },
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
