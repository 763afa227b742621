import { Elysia } from 'elysia';
import { idParam, listQuery } from '../console/console-lists.ts';
import { teamActionsPanel, teamList, teamPage, teamRow } from '../../../views/admin/teams.ts';
import type { ConsoleKit, ConsoleRequest } from '../console/console-plugin.ts';
import type { Capabilities } from '../admin-accounts/capabilities.ts';
import { transitionTeam, type TeamAction } from './team-admin.service.ts';
import { listTeamsForAdmin, teamDossier, teamSummary, type TeamSummary } from './team-directory.ts';

/** Console: the team list, one team (members, apps, audit), and suspend / reinstate (the same service as the CLI). */
const allowed = (team: TeamSummary, can: Capabilities) => (can['developers.suspend'] ? team.actions : []);

function transition(kit: ConsoleKit, action: TeamAction) {
  const id = (c: ConsoleRequest) => idParam(c.params.id, 'Team');
  return kit.action({
    confirm: () => `${action === 'suspend' ? 'Suspend' : 'Reinstate'} this team?`,
    run: (c) => transitionTeam(c.deps, id(c), action, c.actor),
    success: (_c, team) => `${team.name} is ${action === 'suspend' ? 'suspended' : 'reinstated'}.`,
    async fragment(c, outcome) {
      const team = await teamSummary(c.em.fork(), id(c));
      const actions = allowed(team, c.can);
      return c.form.view === 'panel' ? teamActionsPanel(team, actions, c.forms, outcome.message) : teamRow(team, actions, c.forms, outcome.message);
    },
    redirect: (c) => `/admin/teams/${id(c)}`,
  });
}

export function teamsAdmin(kit: ConsoleKit) {
  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/teams',
      kit.page(async (c) => {
        const query = listQuery(c.query);
        const list = await listTeamsForAdmin(c.em, query);
        return {
          title: 'Teams',
          body: teamList({
            rows: list.data.map((team) => ({ team, actions: allowed(team, c.can) })),
            query: { q: query.q ?? undefined },
            paging: { page: query.page, totalPages: list.totalPages, total: list.total },
            form: c.forms,
          }),
        };
      }),
      { capability: 'view' },
    )
    .get(
      '/admin/teams/:id',
      kit.page(async (c) => {
        const team = await teamDossier(c.em, idParam(c.params.id, 'Team'));
        return { title: team.name, back: { href: '/admin/teams', label: 'Teams' }, body: teamPage(team, allowed(team, c.can), c.forms) };
      }),
      { capability: 'view' },
    )
    .post('/admin/teams/:id/suspend', transition(kit, 'suspend'), { capability: 'developers.suspend' })
    .post('/admin/teams/:id/reinstate', transition(kit, 'reinstate'), { capability: 'developers.suspend' });
}
