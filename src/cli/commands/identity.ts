import { mintDevToken } from '../../modules/identity/platform-identity.ts';
import { adminIdByEmail, createAdmin, disableAdmin } from '../../modules/admin-accounts/admins.service.ts';
import { ADMIN_ROLES, type AdminRole } from '../../modules/admin-accounts/admin.entity.ts';
import { transitionDeveloper, type DeveloperAction } from '../../modules/developers/developers.service.ts';
import { CLI_ACTOR } from '../../modules/audit/audit.service.ts';
import { CliUsageError, requirePositional, requireString, runtimeOf, type CliCommand } from '../command.ts';

export const dbMigrate: CliCommand = {
  name: 'db:migrate',
  usage: 'db:migrate',
  description: 'Apply pending migrations (and install pg-boss) under an advisory lock: the release step',
  needsDatabase: true,
  async run(input) {
    // The CLI starts this command's runtime with `migrate: true`, which is the migration itself.
    const applied = runtimeOf(input).appliedMigrations;
    input.print(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
  },
};

export const adminCreate: CliCommand = {
  name: 'admin:create',
  usage: 'admin:create --email E --password P [--role reviewer|support|owner]',
  description: 'Create an admin account (argon2id password)',
  options: { email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' } },
  needsDatabase: true,
  async run(input) {
    const role = (input.values.role as string | undefined) ?? 'owner';
    if (!ADMIN_ROLES.includes(role as AdminRole)) throw new CliUsageError(`--role must be one of ${ADMIN_ROLES.join(', ')}`);
    const admin = await createAdmin(runtimeOf(input).ctx.orm.em.fork(), {
      email: requireString(input.values, 'email'),
      password: requireString(input.values, 'password'),
      role: role as AdminRole,
    });
    input.print(`created admin ${admin.email} (${admin.role}) ${admin.id}`);
  },
};

export const adminDisable: CliCommand = {
  name: 'admin:disable',
  usage: 'admin:disable --email E',
  description: 'Disable an admin: their sessions end at once and sign-in is refused (audited; an owner enables them again in the console)',
  options: { email: { type: 'string' } },
  needsDatabase: true,
  async run(input) {
    const em = runtimeOf(input).ctx.orm.em.fork();
    const { email } = await disableAdmin(em, await adminIdByEmail(em, requireString(input.values, 'email')), CLI_ACTOR);
    input.print(`disabled admin ${email}; their sessions ended`);
  },
};

export const token: CliCommand = {
  name: 'token',
  usage: 'token --user PLATFORM_USER_ID [--email E] [--name N]',
  description: 'Mint a platform OAuth token (dev identity only); prints only the token',
  options: { user: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' } },
  async run(input) {
    input.print(
      await mintDevToken(input.config.oauth, input.config.dataDir, {
        subject: requireString(input.values, 'user'),
        email: input.values.email as string | undefined,
        name: input.values.name as string | undefined,
      }),
    );
  },
};

const developerCommand = (action: DeveloperAction, description: string): CliCommand => ({
  name: `developers:${action}`,
  usage: `developers:${action} <email|id>`,
  description,
  needsDatabase: true,
  enqueuesJobs: true,
  async run(input) {
    const runtime = runtimeOf(input);
    const developer = await transitionDeveloper(
      { em: runtime.ctx.orm.em.fork(), jobs: runtime.ctx.jobs },
      requirePositional(input.positionals, 'developer (e-mail or id)'),
      action,
      CLI_ACTOR,
    );
    input.print(`${developer.email} is now ${developer.status}`);
  },
});

export const identityCommands: CliCommand[] = [
  dbMigrate,
  adminCreate,
  adminDisable,
  token,
  developerCommand('verify', 'Mark a developer VERIFIED (they can then create API keys)'),
  developerCommand('suspend', 'Suspend a developer: keys stop working, apps leave the catalogue'),
  developerCommand('reinstate', 'Reinstate a suspended developer'),
];
