import { Elysia } from 'elysia';
import { idParam, listQuery, oneOf } from '../console/console-lists.ts';
import { developerActionsPanel, developerList, developerPage, developerRow } from '../../../views/admin/developers.ts';
import type { ConsoleKit, ConsoleRequest } from '../console/console-plugin.ts';
import type { Capabilities, Capability } from '../admin-accounts/capabilities.ts';
import { DEVELOPER_STATUSES } from './developer.entity.ts';
import { developerDossier, developerSummary, listDevelopers, type DeveloperSummary } from './developer-directory.ts';
import { transitionDeveloper, type DeveloperAction } from './developers.service.ts';

/** Console: the developer list, one developer, and verify / suspend / reinstate (the same service as the CLI). */
const NEEDS: Record<DeveloperAction, Capability> = {
  verify: 'developers.verify',
  suspend: 'developers.suspend',
  reinstate: 'developers.suspend',
};

const allowed = (developer: DeveloperSummary, can: Capabilities) => developer.actions.filter((action) => can[NEEDS[action]]);

const PAST: Record<DeveloperAction, string> = { verify: 'verified', suspend: 'suspended', reinstate: 'reinstated' };

function transition(kit: ConsoleKit, action: DeveloperAction) {
  const id = (c: ConsoleRequest) => idParam(c.params.id, 'Developer');
  return kit.action({
    confirm: action === 'verify' ? undefined : () => `${action === 'suspend' ? 'Suspend' : 'Reinstate'} this developer?`,
    run: (c) => transitionDeveloper(c.deps, id(c), action, c.actor),
    success: (_c, developer) => `${developer.name} is ${PAST[action]}.`,
    async fragment(c, outcome) {
      const developer = await developerSummary(c.em.fork(), id(c));
      const actions = allowed(developer, c.can);
      return c.form.view === 'panel'
        ? developerActionsPanel(developer, actions, c.forms, outcome.message)
        : developerRow(developer, actions, c.forms, outcome.message);
    },
    redirect: (c) => `/admin/developers/${id(c)}`,
  });
}

export function developersAdmin(kit: ConsoleKit) {
  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/developers',
      kit.page(async (c) => {
        const query = listQuery(c.query);
        const status = oneOf(c.query.status, DEVELOPER_STATUSES);
        const list = await listDevelopers(c.em, { ...query, status });
        return {
          title: 'Developers',
          body: developerList({
            rows: list.data.map((developer) => ({ developer, actions: allowed(developer, c.can) })),
            query: { q: query.q ?? undefined, status: status ?? undefined },
            paging: { page: query.page, totalPages: list.totalPages, total: list.total },
            statuses: DEVELOPER_STATUSES,
            form: c.forms,
          }),
        };
      }),
      { capability: 'view' },
    )
    .get(
      '/admin/developers/:id',
      kit.page(async (c) => {
        const developer = await developerDossier(c.em, idParam(c.params.id, 'Developer'));
        return {
          title: developer.name,
          back: { href: '/admin/developers', label: 'Developers' },
          body: developerPage(developer, allowed(developer, c.can), c.forms),
        };
      }),
      { capability: 'view' },
    )
    .post('/admin/developers/:id/verify', transition(kit, 'verify'), { capability: NEEDS.verify })
    .post('/admin/developers/:id/suspend', transition(kit, 'suspend'), { capability: NEEDS.suspend })
    .post('/admin/developers/:id/reinstate', transition(kit, 'reinstate'), { capability: NEEDS.reinstate });
}
