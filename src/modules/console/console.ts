import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import { errorPage } from '../../../views/admin/errors.ts';
import { dashboardAdmin } from '../dashboard/dashboard.admin.ts';
import { developersAdmin } from '../developers/developers.admin.ts';
import { teamsAdmin } from '../teams/teams.admin.ts';
import { queuesAdmin } from '../queues/queues.admin.ts';
import { appsAdmin } from '../apps/apps.admin.ts';
import { assetsAdmin } from '../assets/assets.admin.ts';
import { listingReviewAdmin } from '../listing-review/listing-review.admin.ts';
import { oauthClientsAdmin } from '../oauth-clients/oauth-clients.admin.ts';
import { reviewsAdmin } from '../reviews/reviews.admin.ts';
import { auditAdmin } from '../audit/audit.admin.ts';
import { outboxAdmin } from '../notifications/outbox.admin.ts';
import { adminsAdmin } from '../admin-accounts/admins.admin.ts';
import type { QueueRegistry } from '../queues/queues.service.ts';
import { signInAdmin } from '../admin-sign-in/sign-in.admin.ts';
import { createConsoleKit } from './console-plugin.ts';

/**
 * The admin console at `/admin`: every feature's `*.admin.ts` routes, each behind the console
 * plugin's `{ capability }` check (`console-plugin.ts`). `queues` is the job registry's list,
 * handed in by the app, so the Jobs page shows whatever queues exist.
 */
export function adminConsole(ctx: AppContext, queues: QueueRegistry) {
  const kit = createConsoleKit(ctx);
  // Unknown console paths get a console page (with its headers), not the API's problem+json.
  const notFound = kit.page(async () => ({ title: 'Not found', body: errorPage('There is no such page in the console.'), status: 404 }));
  return new Elysia()
    .use(kit.assetRoutes)
    .use(signInAdmin(ctx, kit))
    .use(dashboardAdmin(kit, queues))
    .use(developersAdmin(kit))
    .use(teamsAdmin(kit))
    .use(listingReviewAdmin(kit))
    .use(appsAdmin(ctx, kit))
    .use(assetsAdmin(kit))
    .use(oauthClientsAdmin(kit))
    .use(reviewsAdmin(kit))
    .use(queuesAdmin(kit, queues))
    .use(outboxAdmin(kit))
    .use(auditAdmin(kit))
    .use(adminsAdmin(kit))
    .use(kit.plugin)
    .get('/admin/*', notFound, { capability: 'view' })
    .post('/admin/*', notFound, { capability: 'view' });
}
