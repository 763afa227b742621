import { Elysia } from 'elysia';
import { listQuery } from '../console/console-lists.ts';
import { oauthClientsPage, registerClientForm } from '../../../views/admin/oauth-clients.ts';
import type { ConsoleKit, ConsoleRequest, Outcome } from '../console/console-plugin.ts';
import { field } from '../console/console-forms.ts';
import { listOAuthClients } from './oauth-client-directory.ts';
import { registerOAuthClient } from './oauth-clients.service.ts';

/** Console: registered OAuth clients, and support registering one to a developer (as the CLI can). */

async function render(c: ConsoleRequest, outcome?: Outcome<unknown>) {
  const query = listQuery(c.query);
  const list = await listOAuthClients(c.em, query);
  const refused = outcome && !outcome.ok;
  return oauthClientsPage({
    rows: list.data,
    query: { q: query.q ?? undefined },
    paging: { page: query.page, totalPages: list.totalPages, total: list.total },
    register: c.can['oauth-clients.register']
      ? registerClientForm(
          c.forms,
          outcome?.message ?? null,
          refused ? { developer: field(c.form, 'developer'), clientId: field(c.form, 'clientId'), name: field(c.form, 'name') } : {},
        )
      : null,
  });
}

export function oauthClientsAdmin(kit: ConsoleKit) {
  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/oauth-clients',
      kit.page(async (c) => ({ title: 'OAuth clients', body: await render(c) })),
      { capability: 'view' },
    )
    .post(
      '/admin/oauth-clients',
      kit.action({
        run: (c) =>
          registerOAuthClient(
            c.em,
            {
              developer: (field(c.form, 'developer') ?? '').trim(),
              clientId: (field(c.form, 'clientId') ?? '').trim(),
              name: field(c.form, 'name') ?? '',
            },
            c.actor,
          ),
        success: (_c, client) => `Registered ${client.clientId} (${client.name}).`,
        fragment: (c, outcome) => render(c, outcome),
        redirect: () => '/admin/oauth-clients',
      }),
      { capability: 'oauth-clients.register' },
    );
}
