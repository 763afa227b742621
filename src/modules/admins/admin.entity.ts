import { defineEntity, p } from '@mikro-orm/postgresql';

export const ADMIN_ROLES = ['reviewer', 'support', 'owner'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

const AdminSchema = defineEntity({
  name: 'Admin',
  tableName: 'admins',
  properties: {
    id: p.uuid().primary().onCreate(() => Bun.randomUUIDv7()),
    email: p.string(),
    passwordHash: p.string().hidden(),
    role: p.enum(ADMIN_ROLES),
    totpSecret: p.string().nullable().hidden(),
    /** The TOTP time step of the last accepted code: a code is accepted once. */
    totpLastStep: p.bigint('number').nullable().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Admin extends AdminSchema.class {}
AdminSchema.setClass(Admin);
