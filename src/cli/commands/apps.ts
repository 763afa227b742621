import { decideApp, setFeatured, type AdminAppAction } from '../../modules/apps/app-admin.service.ts';
import { decideRevision, type RevisionDecision } from '../../modules/apps/revisions.service.ts';
import type { OwnerAppView } from '../../modules/apps/apps.model.ts';
import { findAppByRef } from '../../modules/apps/app-locks.ts';
import { toOwnerView } from '../../modules/apps/owner-views.ts';
import { registerOAuthClient } from '../../modules/oauth-clients/oauth-clients.service.ts';
import { CLI_ACTOR } from '../../modules/audit/audit.service.ts';
import { CliUsageError, requirePositional, requireString, runtimeOf, type CliCommand, type CliInput } from '../command.ts';

const deps = (input: CliInput) => {
  const { ctx } = runtimeOf(input);
  return { em: ctx.orm.em.fork(), jobs: ctx.jobs };
};

/** `--version N`: the version the reviewer saw; without it the decision applies to the current version. */
function versionOption(input: CliInput): number | undefined {
  const raw = input.values.version;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,8}$/.test(raw)) throw new CliUsageError('--version must be a positive integer');
  return Number(raw);
}

const describe = (app: OwnerAppView) => `${app.slug} is now ${app.status} (version ${app.version}${app.featured ? ', featured' : ''})`;

const appCommand = (action: AdminAppAction, description: string): CliCommand => {
  const takesVersion = action === 'approve' || action === 'reject';
  const needsReason = action === 'reject';
  return {
    name: `apps:${action}`,
    usage: `apps:${action} <slug|id>${needsReason ? ' --reason "…"' : ''}${takesVersion ? ' [--version N]' : ''}`,
    description,
    options: {
      ...(needsReason ? { reason: { type: 'string' } } : {}),
      ...(takesVersion ? { version: { type: 'string' } } : {}),
    },
    needsDatabase: true,
    enqueuesJobs: true,
    async run(input) {
      const app = await decideApp(deps(input), requirePositional(input.positionals, 'app (slug or id)'), action, {
        actor: CLI_ACTOR,
        version: takesVersion ? versionOption(input) : undefined,
        reason: needsReason ? requireString(input.values, 'reason') : undefined,
      });
      input.print(describe(app));
    },
  };
};

export const appsFeature: CliCommand = {
  name: 'apps:feature',
  usage: 'apps:feature <slug|id> [--off]',
  description: 'Feature an approved app on the marketplace (or take it off with --off)',
  options: { off: { type: 'boolean' } },
  needsDatabase: true,
  enqueuesJobs: true,
  async run(input) {
    const app = await setFeatured(deps(input), requirePositional(input.positionals, 'app (slug or id)'), !input.values.off, CLI_ACTOR);
    input.print(describe(app));
  },
};

/** `--version N` here is the revision's version (shown as `pendingRevision` changes are replaced). */
const revisionCommand = (decision: RevisionDecision, description: string): CliCommand => ({
  name: `revisions:${decision}`,
  usage: `revisions:${decision} <slug|id>${decision === 'reject' ? ' --reason "…"' : ''} [--version N]`,
  description,
  options: { ...(decision === 'reject' ? { reason: { type: 'string' } } : {}), version: { type: 'string' } },
  needsDatabase: true,
  enqueuesJobs: true,
  async run(input) {
    const app = await decideRevision(deps(input), requirePositional(input.positionals, 'app (slug or id)'), decision, {
      actor: CLI_ACTOR,
      version: versionOption(input),
      reason: decision === 'reject' ? requireString(input.values, 'reason') : undefined,
    });
    input.print(`revision ${decision === 'approve' ? 'approved' : 'rejected'}: ${describe(app)}`);
  },
});

/** What a reviewer decides on, before deciding: the listing as its owner sees it, with its pending revision. */
export const appsShow: CliCommand = {
  name: 'apps:show',
  usage: 'apps:show <slug|id>',
  description: 'Print an app (JSON, as its owner sees it) with its pending revision and their versions',
  needsDatabase: true,
  async run(input) {
    const em = runtimeOf(input).ctx.orm.em.fork();
    const app = await findAppByRef(em, requirePositional(input.positionals, 'app (slug or id)'));
    input.print(JSON.stringify(await toOwnerView(em, app), null, 2));
  },
};

export const oauthClientsRegister: CliCommand = {
  name: 'oauth-clients:register',
  usage: 'oauth-clients:register --developer <email|id> --client-id ID --name N',
  description: 'Register an OAuth client to a developer (their apps may then name it in oauthClientId)',
  options: { developer: { type: 'string' }, 'client-id': { type: 'string' }, name: { type: 'string' } },
  needsDatabase: true,
  async run(input) {
    const client = await registerOAuthClient(
      runtimeOf(input).ctx.orm.em.fork(),
      {
        developer: requireString(input.values, 'developer'),
        clientId: requireString(input.values, 'client-id'),
        name: requireString(input.values, 'name'),
      },
      CLI_ACTOR,
    );
    input.print(`registered OAuth client ${client.clientId} (${client.name}) for developer ${client.developerId}`);
  },
};

export const appCommands: CliCommand[] = [
  appsShow,
  appCommand('approve', 'Approve a PENDING app (it appears on the marketplace at once)'),
  appCommand('reject', 'Reject a PENDING app with the reasons the developer will see'),
  appCommand('suspend', 'Suspend an APPROVED app (it leaves the marketplace)'),
  appCommand('relist', 'Relist a SUSPENDED app'),
  appsFeature,
  revisionCommand('approve', "Apply an app's pending revision to the live listing"),
  revisionCommand('reject', "Reject an app's pending revision (the live listing stays)"),
  oauthClientsRegister,
];
