import { mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import type { TeamRole } from '../../src/modules/teams/team.entity.ts';

/** Builders for the team tests: a team with members in given roles, each with a key. */

export interface Member extends TestDeveloper {
  key: string;
}

export async function member(t: TestApp, options: { verified?: boolean; name?: string } = {}): Promise<Member> {
  const developer = await registerDeveloper(t, options);
  return { ...developer, key: options.verified === false ? '' : await mintKey(t, developer) };
}

export async function createTeam(t: TestApp, owner: Member, body: object = { name: `Team ${crypto.randomUUID().slice(0, 8)}` }) {
  const response = await t.call('POST', '/api/dev/teams', { token: owner.oauthToken, body });
  if (response.status !== 201) throw new Error(`team creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; name: string };
}

/** Invites `who` and has them accept with their own OAuth token. */
export async function join(t: TestApp, teamId: string, owner: Member, who: Member, role: TeamRole) {
  const invited = await t.call('POST', `/api/dev/teams/${teamId}/invitations`, { token: owner.oauthToken, body: { email: who.email, role } });
  if (invited.status !== 201) throw new Error(`invitation failed: ${invited.status} ${JSON.stringify(invited.body)}`);
  const accepted = await t.call('POST', `/api/dev/invitations/${invited.body.id}/accept`, { token: who.oauthToken });
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
}

/** A team with an owner, a maintainer and an analyst. */
export async function teamOfThree(t: TestApp) {
  const owner = await member(t, { name: 'Olivia Owner' });
  const maintainer = await member(t, { name: 'Max Maintainer' });
  const analyst = await member(t, { name: 'Ann Analyst' });
  const team = await createTeam(t, owner);
  await join(t, team.id, owner, maintainer, 'maintainer');
  await join(t, team.id, owner, analyst, 'analyst');
  return { team, owner, maintainer, analyst };
}

/** A key restricted to the team. */
export async function teamKey(t: TestApp, who: Member, teamId: string, scopes?: string[]) {
  return mintKey(t, who, scopes, { teamId });
}
