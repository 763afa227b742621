import { Elysia, t } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { DataList, IdParams, PageQuery, Paginated, problems } from '../../http/schemas.ts';
import { claimDomain, verifyDomain } from './team-domain.service.ts';
import { listTeamAudit } from './team-audit.ts';
import { OwnerAppView } from '../apps/apps.model.ts';
import { transferApp } from './transfers.service.ts';
import { accessProblems, callerOf } from './access.ts';
import { VERIFIED_PROBLEMS } from '../developers/verification.ts';
import { InvitationParams, InvitationView, MemberParams, MemberView, TeamAuditView, TeamParams, TeamView, teamModels } from './teams.model.ts';
import { createTeam, deleteTeam, getTeam, listTeams, updateTeam } from './teams.service.ts';
import {
  acceptInvitation,
  changeRole,
  declineInvitation,
  inviteMember,
  listMembers,
  listMyInvitations,
  listTeamInvitations,
  removeMember,
  withdrawInvitation,
} from './team-members.service.ts';

const AUTH = 'The OAuth token or any API key (a team key reaches only its own team).';
const MEMBERS_ONLY = 'A non-member gets 404; a role too weak 403 TEAM_ROLE_REQUIRED; a suspended team 403 TEAM_SUSPENDED.';

export function teamsApi(ctx: AppContext, auth: AuthPlugin) {
  const em = () => ctx.orm.em.fork();
  const domains = { allowPrivate: ctx.config.allowPrivateFetch && ctx.config.env !== 'production' };
  return new Elysia({ tags: ['Teams'] })
    .use(auth)
    .model(teamModels)
    .post('/api/dev/teams', async ({ principal, body, status }) => status(201, await createTeam(em(), callerOf(principal), body)), {
      developer: true,
      body: 'CreateTeamBody',
      response: { 201: 'TeamView', ...problems('LIMIT_EXCEEDED', ...VERIFIED_PROBLEMS) },
      detail: {
        summary: 'Create a team',
        description: `${AUTH} Needs a VERIFIED developer (403 DEVELOPER_NOT_VERIFIED); you become its owner. At most 50 teams per developer (409 LIMIT_EXCEEDED).`,
      },
    })
    .get('/api/dev/teams', async ({ principal }) => ({ data: await listTeams(em(), callerOf(principal)) }), {
      developer: true,
      response: { 200: DataList(TeamView, 'Your teams, oldest first'), ...problems('NOT_FOUND') },
      detail: { summary: 'List your teams', description: `${AUTH} Each with your role in it, oldest first.` },
    })
    .get('/api/dev/teams/:id', async ({ principal, params }) => getTeam(em(), callerOf(principal), params.id), {
      developer: true,
      params: TeamParams,
      response: { 200: 'TeamView', ...problems(...accessProblems('read')) },
      detail: { summary: 'Read a team', description: `${AUTH} Any member. ${MEMBERS_ONLY}` },
    })
    .put('/api/dev/teams/:id', async ({ principal, params, body }) => updateTeam(em(), callerOf(principal), params.id, body), {
      developer: true,
      params: TeamParams,
      body: 'UpdateTeamBody',
      response: { 200: 'TeamView', ...problems(...accessProblems('manage')) },
      detail: { summary: 'Rename a team or change its website', description: `${AUTH} Owners only. ${MEMBERS_ONLY}` },
    })
    .delete('/api/dev/teams/:id', async ({ principal, params }) => deleteTeam(em(), callerOf(principal), params.id), {
      developer: true,
      params: TeamParams,
      response: { 200: 'TeamView', ...problems(...accessProblems('manage'), 'TEAM_NOT_EMPTY') },
      detail: {
        summary: 'Delete a team',
        description: `${AUTH} Owners only, and only while it owns no app (409 TEAM_NOT_EMPTY). Returns the deleted team. ${MEMBERS_ONLY}`,
      },
    })
    .post(
      '/api/dev/teams/:id/invitations',
      async ({ principal, params, body, status }) =>
        status(201, await inviteMember({ em: em(), jobs: ctx.jobs }, callerOf(principal), params.id, body)),
      {
        developer: true,
        params: TeamParams,
        body: 'InviteBody',
        response: { 201: 'InvitationView', ...problems(...accessProblems('manage'), 'ALREADY_MEMBER', 'LIMIT_EXCEEDED') },
        detail: {
          summary: 'Invite someone to the team',
          description: `${AUTH} Owners only. The address gets an e-mail; the invitation expires after 7 days and replaces a pending one to the same address. A member with that address: 409 ALREADY_MEMBER; a full team (100 members): 409 LIMIT_EXCEEDED. ${MEMBERS_ONLY}`,
        },
      },
    )
    .get(
      '/api/dev/teams/:id/invitations',
      async ({ principal, params }) => ({ data: await listTeamInvitations(em(), callerOf(principal), params.id) }),
      {
        developer: true,
        params: TeamParams,
        response: {
          200: DataList(InvitationView, "The team's pending invitations"),
          ...problems(...accessProblems('manage')),
        },
        detail: { summary: "List the team's pending invitations", description: `${AUTH} Owners only. ${MEMBERS_ONLY}` },
      },
    )
    .delete(
      '/api/dev/teams/:id/invitations/:invitationId',
      async ({ principal, params }) => withdrawInvitation(em(), callerOf(principal), params.id, params.invitationId),
      {
        developer: true,
        params: InvitationParams,
        response: { 200: 'InvitationView', ...problems(...accessProblems('manage')) },
        detail: { summary: 'Withdraw an invitation', description: `${AUTH} Owners only. An answered or expired invitation is 404. ${MEMBERS_ONLY}` },
      },
    )
    .get('/api/dev/invitations', async ({ principal }) => ({ data: await listMyInvitations(em(), callerOf(principal)) }), {
      developer: true,
      response: { 200: DataList(InvitationView, 'Your pending invitations, newest first'), ...problems('NOT_FOUND') },
      detail: {
        summary: 'Your pending invitations',
        description: `${AUTH} Invitations to your profile e-mail address (case-insensitive), newest first.`,
      },
    })
    .post('/api/dev/invitations/:id/accept', async ({ principal, params }) => acceptInvitation(em(), callerOf(principal), params.id), {
      developer: true,
      params: IdParams,
      response: {
        200: 'AcceptedInvitation',
        ...problems('NOT_FOUND', 'TEAM_ROLE_REQUIRED', 'TEAM_SUSPENDED', 'ALREADY_MEMBER', 'LIMIT_EXCEEDED', ...VERIFIED_PROBLEMS),
      },
      detail: {
        summary: 'Accept an invitation',
        description: `${AUTH} VERIFIED developers only. Someone else's, an expired or a withdrawn invitation is 404; already a member: 409 ALREADY_MEMBER; 100 members or 50 teams: 409 LIMIT_EXCEEDED.`,
      },
    })
    .post('/api/dev/invitations/:id/decline', async ({ principal, params }) => declineInvitation(em(), callerOf(principal), params.id), {
      developer: true,
      params: IdParams,
      response: { 200: 'InvitationView', ...problems('NOT_FOUND') },
      detail: { summary: 'Decline an invitation', description: `${AUTH} Someone else's, an expired or a withdrawn invitation is 404.` },
    })
    .get('/api/dev/teams/:id/members', async ({ principal, params }) => ({ data: await listMembers(em(), callerOf(principal), params.id) }), {
      developer: true,
      params: TeamParams,
      response: { 200: DataList(MemberView, "The team's members"), ...problems(...accessProblems('read')) },
      detail: { summary: "List the team's members", description: `${AUTH} Any member. ${MEMBERS_ONLY}` },
    })
    .put(
      '/api/dev/teams/:id/members/:developerId',
      async ({ principal, params, body }) => changeRole(em(), callerOf(principal), params.id, params.developerId, body.role),
      {
        developer: true,
        params: MemberParams,
        body: 'RoleBody',
        response: { 200: 'MemberView', ...problems(...accessProblems('manage'), 'LAST_OWNER') },
        detail: {
          summary: "Change a member's role",
          description: `${AUTH} Owners only. The last owner cannot be demoted (409 LAST_OWNER). ${MEMBERS_ONLY}`,
        },
      },
    )
    .delete(
      '/api/dev/teams/:id/members/:developerId',
      async ({ principal, params }) => removeMember(em(), callerOf(principal), params.id, params.developerId),
      {
        developer: true,
        params: MemberParams,
        response: { 200: 'MemberView', ...problems(...accessProblems('manage'), 'LAST_OWNER') },
        detail: {
          summary: 'Remove a member, or leave',
          description: `${AUTH} Owners remove anyone; any member removes themselves (leaves). The last owner can neither leave nor be removed (409 LAST_OWNER). Every right through the team ends at once: the member's team keys are revoked. ${MEMBERS_ONLY}`,
        },
      },
    )
    .post('/api/dev/teams/:id/domain', async ({ principal, params, body }) => claimDomain(em(), domains, callerOf(principal), params.id, body), {
      developer: true,
      params: TeamParams,
      body: 'DomainBody',
      response: { 200: 'DomainClaim', ...problems('VALIDATION_FAILED', ...accessProblems('manage'), 'DOMAIN_TAKEN') },
      detail: {
        summary: 'Claim a domain for the team',
        description: `${AUTH} Owners only. Serve \`token\` as the whole body of \`url\` (https://<domain>/.well-known/marketplace-publisher.txt), then call …/domain/verify. A domain verified by another team: 409 DOMAIN_TAKEN. ${MEMBERS_ONLY}`,
      },
    })
    .post('/api/dev/teams/:id/domain/verify', async ({ principal, params }) => verifyDomain(em(), domains, callerOf(principal), params.id), {
      developer: true,
      params: TeamParams,
      response: {
        200: 'TeamView',
        ...problems('DOMAIN_NOT_VERIFIED', ...accessProblems('manage'), 'DOMAIN_TAKEN', 'CONFLICT'),
      },
      detail: {
        summary: "Verify the team's domain",
        description: `${AUTH} Owners only. Fetches the claimed domain's token through the SSRF guard: 200 with \`verifiedDomain\` set, or 400 DOMAIN_NOT_VERIFIED saying what was found; 409 DOMAIN_TAKEN when another team verified it first. Public listings then show it as \`publisher.verifiedDomain\`. ${MEMBERS_ONLY}`,
      },
    })
    .get('/api/dev/teams/:id/audit', async ({ principal, params, query }) => listTeamAudit(em(), callerOf(principal), params.id, query), {
      developer: true,
      params: TeamParams,
      query: t.Object(PageQuery),
      response: {
        200: Paginated(TeamAuditView, "The team's audit entries, newest first"),
        ...problems('VALIDATION_FAILED', ...accessProblems('manage')),
      },
      detail: {
        summary: "The team's audit",
        description: `${AUTH} Owners only. Newest first: invitations, joins, leaves, role changes, transfers, app deletions, team keys, domain verification and suspensions. ${MEMBERS_ONLY}`,
      },
    })
    .post('/api/dev/apps/:id/transfer', async ({ principal, params, body }) => transferApp(em(), callerOf(principal), params.id, body.teamId), {
      apiKey: 'APP_UPDATE',
      params: IdParams,
      body: 'TransferBody',
      response: { 200: OwnerAppView, ...problems(...accessProblems('transfer'), 'CONFLICT') },
      detail: {
        tags: ['Developer apps'],
        summary: 'Transfer an app to a team, between teams, or back to you',
        description:
          'Needs APP_UPDATE. A personal app moves to a team where you are maintainer or owner; a team app moves to another team only when you own both; `teamId: null` returns a team app to you personally (team owners only). Status, slug, installs, reviews, history and a pending revision move with it. Audited in the app history and in each team’s audit. To its current owner: 409 CONFLICT.',
      },
    });
}
