import { ADMIN_ROLES, type AdminRole } from './admin.entity.ts';

/**
 * Who may do what in the admin console, as one table: each capability names the least role that
 * holds it, and roles are ordered reviewer < support < owner. Every console route names the
 * capability it needs, and every button is shown only with it, so the two cannot disagree.
 */
export const CAPABILITIES = {
  /** Dashboard, lists, detail and review pages, the audit log. */
  view: 'reviewer',
  'developers.verify': 'reviewer',
  'apps.decide': 'reviewer',
  'apps.feature': 'reviewer',
  'developers.suspend': 'support',
  'apps.suspend': 'support',
  'apps.support-edit': 'support',
  'oauth-clients.register': 'support',
  'reviews.moderate': 'support',
  /** Queue details, dead letters and "Retry", the outbox. */
  jobs: 'support',
  'admins.manage': 'owner',
} as const satisfies Record<string, AdminRole>;

export type Capability = keyof typeof CAPABILITIES;
export type Capabilities = Record<Capability, boolean>;

const rank = (role: AdminRole) => ADMIN_ROLES.indexOf(role);

export const holds = (role: AdminRole, capability: Capability) => rank(role) >= rank(CAPABILITIES[capability]);

export function capabilitiesOf(role: AdminRole): Capabilities {
  return Object.fromEntries(Object.keys(CAPABILITIES).map((name) => [name, holds(role, name as Capability)])) as Capabilities;
}
