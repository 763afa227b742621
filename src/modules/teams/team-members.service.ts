import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { rawKey } from '../../lib/raw-keys.ts';
import { executeNamed } from '../../lib/named-sql.ts';
import { ApiError, notFound } from '../../http/problem.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { Developer } from '../developers/developer.entity.ts';
import { assertVerified } from '../developers/verification.ts';
import { notifyTeamInvitation } from '../notifications/notifications.service.ts';
import { authorizeTeam, type Caller } from './access.ts';
import { recordTeamAudit } from './team-audit.ts';
import { Team, TeamInvitation, TeamMember, type TeamRole } from './team.entity.ts';
import type { InvitationView, InviteInput, MemberView, TeamView } from './teams.model.ts';
import { assertTeamRoom, MAX_MEMBERS_PER_TEAM, teamViewFor } from './teams.service.ts';

/**
 * Membership: invitations by e-mail (answered by the invitee with their own credentials),
 * role changes, removal and leaving. Every change locks the team row, so the member cap and
 * "at least one owner" hold under concurrency.
 */
export const INVITATION_DAYS = 7;
const DAY_MS = 86_400_000;

const toInvitationView = (invitation: TeamInvitation, teamName: string): InvitationView => ({
  id: invitation.id,
  teamId: invitation.team.id,
  teamName,
  email: invitation.email,
  role: invitation.role,
  createdAt: invitation.createdAt.toISOString(),
  expiresAt: invitation.expiresAt.toISOString(),
});

async function assertMemberRoom(tx: EntityManager, teamId: string): Promise<void> {
  if ((await tx.count(TeamMember, { team: teamId })) >= MAX_MEMBERS_PER_TEAM) {
    throw new ApiError(409, 'LIMIT_EXCEEDED', `A team can have at most ${MAX_MEMBERS_PER_TEAM} members`);
  }
}

const lowerEmail = (email: string) => email.toLowerCase();

export async function inviteMember(
  { em, jobs }: { em: EntityManager; jobs: JobQueue },
  caller: Caller,
  teamId: string,
  input: InviteInput,
): Promise<InvitationView> {
  return em.transactional(async (tx) => {
    const { teamName } = await authorizeTeam(tx, caller, teamId, 'manage', { lock: true });
    const member = await tx.count(TeamMember, { team: teamId, developer: { [rawKey('lower(email)')]: lowerEmail(input.email) } });
    if (member) throw new ApiError(409, 'ALREADY_MEMBER', 'A member of this team already has that e-mail address');
    await assertMemberRoom(tx, teamId);
    // A new invitation to the same address replaces the pending one (its role, its expiry).
    await tx.nativeUpdate(
      TeamInvitation,
      { team: teamId, email: { $ilike: input.email.replace(/[\\%_]/g, '\\$&') }, status: 'PENDING' },
      { status: 'WITHDRAWN', answeredAt: new Date() },
    );
    const invitation = tx.create(TeamInvitation, {
      team: tx.getReference(Team, teamId),
      email: input.email,
      role: input.role,
      invitedBy: caller.developerId,
      expiresAt: new Date(Date.now() + INVITATION_DAYS * DAY_MS),
    });
    recordTeamAudit(tx, {
      teamId,
      actorDeveloperId: caller.developerId,
      action: 'invitation.created',
      target: input.email,
      details: { role: input.role },
    });
    await tx.flush();
    await notifyTeamInvitation(jobs, tx, invitation.id);
    return toInvitationView(invitation, teamName);
  });
}

export async function listTeamInvitations(em: EntityManager, caller: Caller, teamId: string): Promise<InvitationView[]> {
  const { teamName } = await authorizeTeam(em, caller, teamId, 'manage');
  const invitations = await em.find(
    TeamInvitation,
    { team: teamId, status: 'PENDING', expiresAt: { $gt: new Date() } },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return invitations.map((invitation) => toInvitationView(invitation, teamName));
}

export async function withdrawInvitation(em: EntityManager, caller: Caller, teamId: string, invitationId: string): Promise<InvitationView> {
  return em.transactional(async (tx) => {
    const { teamName } = await authorizeTeam(tx, caller, teamId, 'manage', { lock: true });
    const invitation = await tx.findOne(TeamInvitation, { id: invitationId, team: teamId, status: 'PENDING', expiresAt: { $gt: new Date() } });
    if (!invitation) throw notFound('Invitation');
    invitation.status = 'WITHDRAWN';
    invitation.answeredAt = new Date();
    recordTeamAudit(tx, { teamId, actorDeveloperId: caller.developerId, action: 'invitation.withdrawn', target: invitation.email });
    return toInvitationView(invitation, teamName);
  });
}

/** Pending invitations to the caller's profile e-mail (case-insensitive). */
export async function listMyInvitations(em: EntityManager, caller: Caller): Promise<InvitationView[]> {
  const developer = await em.findOneOrFail(Developer, { id: caller.developerId });
  const invitations = await em.find(
    TeamInvitation,
    { email: { $ilike: developer.email.replace(/[\\%_]/g, '\\$&') }, status: 'PENDING', expiresAt: { $gt: new Date() } },
    { populate: ['team'], orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return invitations.map((invitation) => toInvitationView(invitation, invitation.team.name));
}

/** The caller's own pending invitation, locked; anyone else's, an expired or an answered one is 404. */
async function lockMyInvitation(
  tx: EntityManager,
  caller: Caller,
  invitationId: string,
): Promise<{ invitation: TeamInvitation; developer: Developer }> {
  const developer = await tx.findOneOrFail(Developer, { id: caller.developerId });
  const invitation = await tx.findOne(
    TeamInvitation,
    { id: invitationId, status: 'PENDING', expiresAt: { $gt: new Date() } },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!invitation || lowerEmail(invitation.email) !== lowerEmail(developer.email)) throw notFound('Invitation');
  return { invitation, developer };
}

export async function acceptInvitation(em: EntityManager, caller: Caller, invitationId: string): Promise<{ team: TeamView; role: TeamRole }> {
  const { teamId, role } = await em.transactional(async (tx) => {
    const { invitation, developer } = await lockMyInvitation(tx, caller, invitationId);
    assertVerified(developer.status, { what: 'Invitations', done: 'accepted' });
    const team = await tx.findOneOrFail(Team, { id: invitation.team.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (team.suspendedAt) throw new ApiError(403, 'TEAM_SUSPENDED', 'This team is suspended by the marketplace');
    if (await tx.count(TeamMember, { team, developer })) throw new ApiError(409, 'ALREADY_MEMBER', 'You are already a member of this team');
    await assertMemberRoom(tx, team.id);
    await assertTeamRoom(tx, developer.id);
    tx.create(TeamMember, { team, developer, role: invitation.role });
    invitation.status = 'ACCEPTED';
    invitation.answeredAt = new Date();
    recordTeamAudit(tx, {
      teamId: team.id,
      actorDeveloperId: developer.id,
      action: 'member.joined',
      target: developer.id,
      details: { role: invitation.role },
    });
    return { teamId: team.id, role: invitation.role };
  });
  return { team: await teamViewFor(em, caller.developerId, teamId), role };
}

export async function declineInvitation(em: EntityManager, caller: Caller, invitationId: string): Promise<InvitationView> {
  return em.transactional(async (tx) => {
    const { invitation } = await lockMyInvitation(tx, caller, invitationId);
    const team = await tx.findOneOrFail(Team, { id: invitation.team.id });
    invitation.status = 'DECLINED';
    invitation.answeredAt = new Date();
    recordTeamAudit(tx, { teamId: team.id, actorDeveloperId: caller.developerId, action: 'invitation.declined', target: invitation.email });
    return toInvitationView(invitation, team.name);
  });
}

interface Member {
  developerId: string;
  name: string;
  email: string;
  role: TeamRole;
  joinedAt: Date;
}

/** A team's members (or the one developer among them) with their developers, read afresh, oldest member first. */
async function membersOf(em: EntityManager, teamId: string, developerId?: string): Promise<Member[]> {
  const members = await em.find(TeamMember, developerId ? { team: teamId, developer: developerId } : { team: teamId }, {
    populate: ['developer'],
    orderBy: { joinedAt: 'asc', id: 'asc' },
    disableIdentityMap: true,
  });
  return members.map((m) => ({ developerId: m.developer.id, name: m.developer.name, email: m.developer.email, role: m.role, joinedAt: m.joinedAt }));
}

const toMemberView = (member: Member): MemberView => ({ ...member, joinedAt: member.joinedAt.toISOString() });

export async function listMembers(em: EntityManager, caller: Caller, teamId: string): Promise<MemberView[]> {
  await authorizeTeam(em, caller, teamId, 'read');
  return (await membersOf(em, teamId)).map(toMemberView);
}

/** The member (the caller holds the team's lock, so it cannot change under them). */
async function lockedMember(tx: EntityManager, teamId: string, developerId: string): Promise<Member> {
  const [member] = await membersOf(tx, teamId, developerId);
  if (!member) throw notFound('Member');
  return member;
}

async function assertAnotherOwner(tx: EntityManager, teamId: string, member: Member, doing: string): Promise<void> {
  if (member.role !== 'owner') return;
  if ((await tx.count(TeamMember, { team: teamId, role: 'owner' })) <= 1) {
    throw new ApiError(409, 'LAST_OWNER', `The team's last owner cannot ${doing}: make another member an owner first`);
  }
}

export async function changeRole(em: EntityManager, caller: Caller, teamId: string, developerId: string, role: TeamRole): Promise<MemberView> {
  return em.transactional(async (tx) => {
    await authorizeTeam(tx, caller, teamId, 'manage', { lock: true });
    const member = await lockedMember(tx, teamId, developerId);
    if (role !== 'owner') await assertAnotherOwner(tx, teamId, member, 'be demoted');
    await tx.nativeUpdate(TeamMember, { team: teamId, developer: developerId }, { role });
    recordTeamAudit(tx, {
      teamId,
      actorDeveloperId: caller.developerId,
      action: 'member.role_changed',
      target: developerId,
      details: { from: member.role, to: role },
    });
    return toMemberView({ ...member, role });
  });
}

/**
 * An owner removes a member, or a member leaves. Every right through the team ends in this
 * transaction: the membership goes and so do the member's keys restricted to the team (revoked,
 * with any key minted from them, which carry the same restriction).
 */
export async function removeMember(em: EntityManager, caller: Caller, teamId: string, developerId: string): Promise<MemberView> {
  return em.transactional(async (tx) => {
    const leaving = developerId === caller.developerId;
    await authorizeTeam(tx, caller, teamId, leaving ? 'read' : 'manage', { lock: true });
    const member = await lockedMember(tx, teamId, developerId);
    await assertAnotherOwner(tx, teamId, member, leaving ? 'leave' : 'be removed');
    await tx.nativeDelete(TeamMember, { team: teamId, developer: developerId });
    // Batch work (raw SQL, D106): every team key of the leaving member revoked in one statement.
    await executeNamed(tx, 'update api_keys set revoked_at = now() where team_id = :teamId and developer_id = :developerId and revoked_at is null', {
      teamId,
      developerId,
    });
    recordTeamAudit(tx, {
      teamId,
      actorDeveloperId: caller.developerId,
      action: leaving ? 'member.left' : 'member.removed',
      target: developerId,
      details: { role: member.role },
    });
    return toMemberView(member);
  });
}
