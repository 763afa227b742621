import { CLI_ACTOR } from '../../modules/audit/audit.service.ts';
import { transitionTeam, type TeamAction } from '../../modules/teams/team-admin.service.ts';
import { requirePositional, runtimeOf, type CliCommand } from '../command.ts';

const teamCommand = (action: TeamAction, description: string): CliCommand => ({
  name: `teams:${action}`,
  usage: `teams:${action} <id|name>`,
  description,
  needsDatabase: true,
  enqueuesJobs: true,
  async run(input) {
    const runtime = runtimeOf(input);
    const team = await transitionTeam(
      { em: runtime.ctx.orm.em.fork(), jobs: runtime.ctx.jobs },
      requirePositional(input.positionals, 'team (id or name)'),
      action,
      CLI_ACTOR,
    );
    input.print(`team "${team.name}" (${team.id}) is now ${team.suspendedAt ? 'SUSPENDED' : 'active'}`);
  },
});

export const teamCommands: CliCommand[] = [
  teamCommand('suspend', 'Suspend a team: its apps leave the catalogue (410) and its members cannot act for it'),
  teamCommand('reinstate', 'Reinstate a suspended team'),
];
