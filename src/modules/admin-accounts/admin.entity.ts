import { defineEntity, p } from '@mikro-orm/postgresql';

export const ADMIN_ROLES = ['reviewer', 'support', 'owner'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

const AdminSchema = defineEntity({
  name: 'Admin',
  tableName: 'admins',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    email: p.string(),
    passwordHash: p.string().hidden(),
    role: p.enum(ADMIN_ROLES),
    /** Sealed under `WEBHOOK_ENCRYPTION_KEYS` with the admin's id (`totp-secrets.ts`); older clear values are read until resealed. */
    totpSecret: p.string().nullable().hidden(),
    /** The TOTP time step of the last accepted code: a code is accepted once. */
    totpLastStep: p.bigint('number').nullable().hidden(),
    /** After a reset: the SHA-256 of the one-time code the next enrolment needs, and when it lapses. */
    totpEnrolmentCodeHash: p.string().nullable().hidden(),
    totpEnrolmentCodeExpiresAt: p.datetime().nullable().hidden(),
    /** A disabled admin cannot sign in and has no session. */
    disabledAt: p.datetime().nullable(),
    lastSignInAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Admin extends AdminSchema.class {}
AdminSchema.setClass(Admin);
