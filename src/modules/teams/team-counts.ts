import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { App } from '../apps/app.entity.ts';
import { TeamMember } from './team.entity.ts';

/** Members and apps per team, by id (two grouped counts for a page). */
export async function teamCounts(em: EntityManager, ids: string[]): Promise<Map<string, { members: number; apps: number }>> {
  const counts = new Map(ids.map((id) => [id, { members: 0, apps: 0 }]));
  if (ids.length === 0) return counts;
  const [members, apps] = await Promise.all([
    em
      .createQueryBuilder(TeamMember, 'm')
      .select([raw('m.team_id as team_id'), raw('count(*)::int as n')])
      .where({ team: { $in: ids } })
      .groupBy('m.team')
      .execute<{ team_id: string; n: number }[]>('all', false),
    em
      .createQueryBuilder(App, 'a')
      .select([raw('a.team_id as team_id'), raw('count(*)::int as n')])
      .where({ teamId: { $in: ids } })
      .groupBy('a.teamId')
      .execute<{ team_id: string; n: number }[]>('all', false),
  ]);
  for (const row of members) counts.get(row.team_id)!.members = row.n;
  for (const row of apps) counts.get(row.team_id)!.apps = row.n;
  return counts;
}
