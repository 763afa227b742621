import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../../http/problem.ts';
import { Developer } from '../developers/developer.entity.ts';
import { recordTransition } from '../apps/app-history.ts';
import type { OwnerAppView } from '../apps/apps.model.ts';
import { toOwnerView } from '../apps/owner-views.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';
import { authorizeTeam, lockAppFor, type Caller } from './access.ts';
import { recordTeamAudit } from './team-audit.ts';

/**
 * Moves an app between its owners. Only the owner changes: the app keeps its id, so its status,
 * slug, installs, reviews, history and any pending revision (all keyed by the app) move with it.
 * - personal → team: the app's developer, who is maintainer or owner of the team;
 * - team → team: an owner of both;
 * - team → personal (`teamId: null`): an owner of the team, who becomes its developer.
 * Audited on both sides: the app's history, and the audit of every team involved.
 */
export async function transferApp(em: EntityManager, caller: Caller, appId: string, teamId: string | null): Promise<OwnerAppView> {
  const app = await em.transactional(async (tx) => {
    const locked = await lockAppFor(tx, caller, appId, 'transfer');
    const fromTeam = locked.teamId ?? null;
    if (fromTeam === teamId) {
      throw new ApiError(409, 'CONFLICT', teamId ? 'The app already belongs to this team' : 'The app is already yours personally');
    }
    const target = teamId ? await authorizeTeam(tx, caller, teamId, fromTeam ? 'manage' : 'create') : null;
    if (!target && caller.keyTeamId !== null) throw notFound('Team');
    locked.teamId = teamId;
    if (!teamId) locked.developer = tx.getReference(Developer, caller.developerId);
    recordTransition(tx, locked, {
      actor: `developer:${caller.developerId}`,
      action: 'transfer',
      from: locked.status,
      reason: `${fromTeam ? `team ${fromTeam}` : 'personal'} → ${teamId ? `team ${teamId}` : `developer ${caller.developerId}`}`,
    });
    const details = { appName: locked.name, slug: locked.slug, from: fromTeam, to: teamId };
    if (fromTeam)
      recordTeamAudit(tx, { teamId: fromTeam, actorDeveloperId: caller.developerId, action: 'app.transferred_out', target: locked.id, details });
    if (teamId) recordTeamAudit(tx, { teamId, actorDeveloperId: caller.developerId, action: 'app.transferred_in', target: locked.id, details });
    // The public listing now names another publisher.
    if (locked.status === 'APPROVED') await bumpCatalogueVersion(tx);
    return locked;
  });
  return toOwnerView(em, app);
}
