import { defineEntity, p } from '@mikro-orm/postgresql';
import { Admin } from '../admin-accounts/admin.entity.ts';

export const SESSION_STAGES = ['totp', 'enrol', 'active'] as const;
export type SessionStage = (typeof SESSION_STAGES)[number];

/**
 * A console session row (`sessions.service.ts` reads and writes it): the SHA-256 of the cookie's
 * token, never the token. `totp` and `enrol` are half-signed-in sessions that may only finish the
 * second factor.
 */
const AdminSessionRecordSchema = defineEntity({
  name: 'AdminSessionRecord',
  tableName: 'admin_sessions',
  properties: {
    tokenHash: p.string().primary(),
    admin: () => p.manyToOne(Admin).deleteRule('cascade'),
    csrfToken: p.string(),
    stage: p.enum(SESSION_STAGES),
    /** An enrolment in progress: the new secret, sealed (`totp-secrets.ts`). */
    pendingTotpSecret: p.string().nullable(),
    /** JSON of the message the next page shows. */
    flash: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastSeenAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
  },
});

export class AdminSessionRecord extends AdminSessionRecordSchema.class {}
AdminSessionRecordSchema.setClass(AdminSessionRecord);

export const SIGN_IN_STEPS = ['password', 'code'] as const;

/** A failed sign-in, kept a month for the account's owner to see (when, from where, which step). */
const AdminSignInFailureSchema = defineEntity({
  name: 'AdminSignInFailure',
  tableName: 'admin_sign_in_failures',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    adminId: p.uuid(),
    address: p.string(),
    step: p.enum(SIGN_IN_STEPS),
    failedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class AdminSignInFailure extends AdminSignInFailureSchema.class {}
AdminSignInFailureSchema.setClass(AdminSignInFailure);
