import { LockMode, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { rawKey } from '../../lib/raw-keys.ts';
import { ApiError, notFound, validationFailed } from '../../http/problem.ts';
import type { DeveloperPrincipal } from '../identity/auth.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { PlatformIdentity } from '../identity/platform-identity.ts';
import { Developer, type DeveloperStatus } from './developer.entity.ts';
import type { DeveloperProfile, RegisterDeveloperInput, UpdateDeveloperInput } from './developers.model.ts';
import type { UrlPolicy } from '../../http/url-policy.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { enqueueCategoryCounts } from '../stats/stats.service.ts';
import { notifyDeveloperVerified, notifyEmailChanged } from '../notifications/notifications.service.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';

export function toProfile(developer: Developer): DeveloperProfile {
  return {
    id: developer.id,
    name: developer.name,
    email: developer.email,
    platformUserId: developer.platformUserId,
    companyName: developer.companyName ?? null,
    websiteUrl: developer.websiteUrl ?? null,
    bio: developer.bio ?? null,
    status: developer.status,
    createdAt: developer.createdAt.toISOString(),
    updatedAt: developer.updatedAt.toISOString(),
  };
}

const developerExists = () => new ApiError(409, 'DEVELOPER_EXISTS', 'A developer with this platform account or e-mail address already exists');

export async function findDeveloperIdByPlatformUser(em: EntityManager, platformUserId: string): Promise<string | null> {
  const developer = await em.findOne(Developer, { platformUserId }, { fields: ['id'], disableIdentityMap: true });
  return developer?.id ?? null;
}

export async function getDeveloper(em: EntityManager, id: string): Promise<Developer> {
  const developer = await em.findOne(Developer, { id });
  if (!developer) throw notFound('Developer');
  return developer;
}

/** Two writers racing past the existence checks: the unique indexes decide. */
async function flushUnique(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw developerExists();
    throw error;
  }
}

async function emailTaken(em: EntityManager, email: string, exceptId?: string): Promise<boolean> {
  const rows = await em.find(Developer, { [rawKey('lower(email)')]: email.toLowerCase() }, { fields: ['id'], disableIdentityMap: true });
  return rows.some((row) => row.id !== exceptId);
}

export async function registerDeveloper(
  em: EntityManager,
  identity: PlatformIdentity,
  input: RegisterDeveloperInput,
  urls: UrlPolicy,
): Promise<Developer> {
  if (identity.subject !== input.platformUserId) {
    throw new ApiError(403, 'PLATFORM_USER_MISMATCH', 'platformUserId must be the account the OAuth token was issued for');
  }
  assertPlatformEmail(identity, input.email);
  urls.assertAllowed({ websiteUrl: input.websiteUrl });
  if ((await findDeveloperIdByPlatformUser(em, input.platformUserId)) || (await emailTaken(em, input.email))) {
    throw developerExists();
  }
  const developer = em.create(Developer, {
    platformUserId: input.platformUserId,
    name: input.name,
    email: input.email,
    companyName: input.companyName ?? null,
    websiteUrl: input.websiteUrl ?? null,
    bio: input.bio ?? null,
  });
  await flushUnique(em);
  return developer;
}

const PUBLIC_PROFILE_FIELDS = ['name', 'companyName', 'websiteUrl'] as const;

/**
 * Mail goes only where the platform says the developer is: when the token carries a verified
 * `email` claim, the profile's address must be that one.
 */
function assertPlatformEmail(identity: PlatformIdentity, email: string): void {
  if (identity.emailVerified && identity.email && identity.email.toLowerCase() !== email.toLowerCase()) {
    throw validationFailed('The request body is invalid', [
      { path: 'email', message: 'must be the e-mail address your platform account has verified' },
    ]);
  }
}

/**
 * PUT /me. Changing the e-mail address needs the platform OAuth token (an API key, perhaps leaked,
 * may not redirect the account's mail), must match a verified address the token carries, is
 * audited, and the old address is told.
 */
export async function updateDeveloper(
  { em, jobs }: { em: EntityManager; jobs: JobQueue },
  principal: DeveloperPrincipal,
  input: UpdateDeveloperInput,
  urls: UrlPolicy,
): Promise<Developer> {
  urls.assertAllowed({ websiteUrl: input.websiteUrl });
  return em.transactional(async (tx) => {
    const developer = await tx.findOne(Developer, { id: principal.developerId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!developer) throw notFound('Developer');
    const previousEmail = developer.email;
    const emailChanges = input.email !== undefined && input.email.toLowerCase() !== previousEmail.toLowerCase();
    if (emailChanges) {
      if (principal.via !== 'oauth') {
        throw new ApiError(
          403,
          'OAUTH_TOKEN_REQUIRED',
          "Changing the e-mail address needs the platform OAuth token; an API key cannot redirect the account's mail",
        );
      }
      assertPlatformEmail(principal.identity, input.email!);
      if (await emailTaken(tx, input.email!, developer.id)) throw developerExists();
    }
    // The name, company and website are shown with every public listing of the developer.
    const shownPublicly = PUBLIC_PROFILE_FIELDS.some((field) => input[field] !== undefined && input[field] !== developer[field]);
    tx.assign(developer, input);
    if (emailChanges) {
      const entry = recordAudit(
        tx,
        { label: `developer:${developer.id}` },
        {
          action: 'developer.email-change',
          subjectType: 'developer',
          subjectId: developer.id,
          before: { email: previousEmail },
          after: { email: developer.email },
        },
      );
      await flushUnique(tx);
      await notifyEmailChanged(jobs, tx, entry.id);
    }
    await flushUnique(tx);
    if (shownPublicly) await bumpCatalogueVersion(tx);
    return developer;
  });
}

/** Developer states: which administrative action moves which state where. */
const DEVELOPER_TRANSITIONS = {
  verify: { from: ['PENDING_VERIFICATION'], to: 'VERIFIED' },
  suspend: { from: ['PENDING_VERIFICATION', 'VERIFIED'], to: 'SUSPENDED' },
  reinstate: { from: ['SUSPENDED'], to: 'VERIFIED' },
} as const satisfies Record<string, { from: readonly DeveloperStatus[]; to: DeveloperStatus }>;
export type DeveloperAction = keyof typeof DEVELOPER_TRANSITIONS;

/** The actions that apply to a developer in this state (what the console offers). */
export const developerActionsFrom = (status: DeveloperStatus): DeveloperAction[] =>
  (Object.keys(DEVELOPER_TRANSITIONS) as DeveloperAction[]).filter((action) =>
    (DEVELOPER_TRANSITIONS[action].from as readonly DeveloperStatus[]).includes(status),
  );

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Finds a developer by id or e-mail address, as the CLI and the admin console name them. */
export async function findDeveloper(em: EntityManager, idOrEmail: string, options: { lock?: boolean } = {}): Promise<Developer> {
  const where = UUID.test(idOrEmail) ? { id: idOrEmail } : { email: { $ilike: idOrEmail.replace(/[\\%_]/g, '\\$&') } };
  const developer = await em.findOne(Developer, where, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!developer) throw notFound('Developer');
  return developer;
}

/**
 * The one place developer status changes. Verification, suspension and reinstatement are
 * administrative; each is audited, and verification e-mails the developer.
 * Suspension and reinstatement take the developer's apps out of (or back into) the public
 * catalogue, so they recount the categories in the same transaction.
 */
export async function transitionDeveloper(
  { em, jobs }: { em: EntityManager; jobs: JobQueue },
  idOrEmail: string,
  action: DeveloperAction,
  actor: Actor,
): Promise<Developer> {
  return em.transactional(async (tx) => {
    const developer = await findDeveloper(tx, idOrEmail, { lock: true });
    const rule = DEVELOPER_TRANSITIONS[action];
    if (!(rule.from as readonly DeveloperStatus[]).includes(developer.status)) {
      throw new ApiError(409, 'INVALID_STATE_TRANSITION', `Cannot ${action} a developer who is ${developer.status}`);
    }
    const before = developer.status;
    developer.status = rule.to;
    recordAudit(tx, actor, {
      action: `developer.${action}`,
      subjectType: 'developer',
      subjectId: developer.id,
      before: { status: before },
      after: { status: rule.to },
    });
    if (action === 'verify') {
      await notifyDeveloperVerified(jobs, tx, developer.id);
    } else {
      await enqueueCategoryCounts(jobs, tx);
      await bumpCatalogueVersion(tx);
    }
    return developer;
  });
}
