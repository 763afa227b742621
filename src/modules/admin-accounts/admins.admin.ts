import { Elysia } from 'elysia';
import { idParam } from '../console/console-lists.ts';
import { validationFailed } from '../../http/problem.ts';
import { adminRow, adminsPage } from '../../../views/admin/admins.ts';
import { ADMIN_ROLES, type AdminRole } from './admin.entity.ts';
import { createAdmin, disableAdmin, enableAdmin, listAdmins, resetSecondFactor, setAdminRole } from './admins.service.ts';
import { ENROLMENT_CODE_HOURS } from '../admin-sign-in/enrolment-code.ts';
import type { ConsoleKit, ConsoleRequest, Outcome } from '../console/console-plugin.ts';
import { field } from '../console/console-forms.ts';

/** Console (owners only): admins, their roles, second factors and whether they may sign in. */

function roleOf(c: ConsoleRequest): AdminRole {
  const role = field(c.form, 'role');
  if (!role || !ADMIN_ROLES.includes(role as AdminRole)) throw validationFailed(`The role must be one of ${ADMIN_ROLES.join(', ')}`);
  return role as AdminRole;
}

async function render(c: ConsoleRequest, outcome?: Pick<Outcome<unknown>, 'ok' | 'message'>) {
  const refused = outcome && !outcome.ok;
  return adminsPage({
    admins: await listAdmins(c.em.fork()),
    roles: ADMIN_ROLES,
    form: c.forms,
    selfId: c.session.admin.id,
    message: outcome?.message,
    typed: refused ? { email: field(c.form, 'email'), role: field(c.form, 'role') } : undefined,
  });
}

async function row(c: ConsoleRequest, outcome: Pick<Outcome<unknown>, 'ok' | 'message'>) {
  const id = idParam(c.params.id, 'Admin');
  const admin = (await listAdmins(c.em.fork())).find((a) => a.id === id);
  if (!admin) return render(c, outcome);
  return adminRow(admin, ADMIN_ROLES, c.forms, admin.id === c.session.admin.id, outcome.message);
}

export function adminsAdmin(kit: ConsoleKit) {
  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/admins',
      kit.page(async (c) => ({ title: 'Admins', body: await render(c) })),
      { capability: 'admins.manage' },
    )
    .post(
      '/admin/admins',
      kit.action({
        run: (c) => createAdmin(c.em, { email: field(c.form, 'email') ?? '', password: field(c.form, 'password') ?? '', role: roleOf(c) }, c.actor),
        success: (_c, admin) => `Created ${admin.email} (${admin.role}). They set up two-factor sign-in at their first sign-in where it is required.`,
        fragment: (c, outcome) => render(c, outcome),
        redirect: () => '/admin/admins',
      }),
      { capability: 'admins.manage' },
    )
    .post(
      '/admin/admins/:id/role',
      kit.action({
        run: (c) => setAdminRole(c.em, idParam(c.params.id, 'Admin'), roleOf(c), c.actor),
        success: () => 'Role changed; it applies to their next request.',
        fragment: row,
        redirect: () => '/admin/admins',
      }),
      { capability: 'admins.manage' },
    )
    .post(
      '/admin/admins/:id/reset-totp',
      kit.action({
        confirm: () => 'Reset this admin’s second factor? Their sessions end now.',
        run: (c) => resetSecondFactor(c.em, idParam(c.params.id, 'Admin'), c.actor),
        // Shown this once, to this owner: the admin needs it (with their password) to enrol again.
        success: (_c, reset) =>
          `Second factor of ${reset.email} reset. Give them this one-time enrolment code (valid ${ENROLMENT_CODE_HOURS} hours) by a channel other than their password: ${reset.enrolmentCode}`,
        fragment: row,
        redirect: () => '/admin/admins',
      }),
      { capability: 'admins.manage' },
    )
    .post(
      '/admin/admins/:id/disable',
      kit.action({
        confirm: () => 'Disable this admin? Their sessions end now and they cannot sign in until an owner enables them.',
        run: (c) => disableAdmin(c.em, idParam(c.params.id, 'Admin'), c.actor),
        success: (_c, admin) => `${admin.email} is disabled; their sessions have ended.`,
        fragment: row,
        redirect: () => '/admin/admins',
      }),
      { capability: 'admins.manage' },
    )
    .post(
      '/admin/admins/:id/enable',
      kit.action({
        run: (c) => enableAdmin(c.em, idParam(c.params.id, 'Admin'), c.actor),
        success: () => 'Enabled; they can sign in again.',
        fragment: row,
        redirect: () => '/admin/admins',
      }),
      { capability: 'admins.manage' },
    );
}
