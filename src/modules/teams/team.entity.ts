import { defineEntity, p } from '@mikro-orm/postgresql';
import { Developer } from '../developers/developer.entity.ts';

/** Roles, strongest first: each includes every right of the ones after it. */
export const TEAM_ROLES = ['owner', 'maintainer', 'analyst'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** A publisher that owns apps together; its members act for it by role. */
const TeamSchema = defineEntity({
  name: 'Team',
  tableName: 'teams',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    name: p.string(),
    websiteUrl: p.string().nullable(),
    /** Proven by serving `domainToken` at the domain's well-known path; unique across teams. */
    verifiedDomain: p.string().nullable(),
    /** The domain an owner asked to verify, and the token it must serve. */
    pendingDomain: p.string().nullable(),
    domainToken: p.string().nullable().hidden(),
    /** Set by an administrator: the team's apps leave the catalogue and nobody acts for it. */
    suspendedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export class Team extends TeamSchema.class {}
TeamSchema.setClass(Team);

const TeamMemberSchema = defineEntity({
  name: 'TeamMember',
  tableName: 'team_members',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    team: () => p.manyToOne(Team).deleteRule('cascade'),
    developer: () => p.manyToOne(Developer).deleteRule('cascade'),
    role: p.enum(TEAM_ROLES),
    joinedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class TeamMember extends TeamMemberSchema.class {}
TeamMemberSchema.setClass(TeamMember);

export const INVITATION_STATUSES = ['PENDING', 'ACCEPTED', 'DECLINED', 'WITHDRAWN'] as const;

/** An invitation to an e-mail address; answered by the developer whose profile carries it. */
const TeamInvitationSchema = defineEntity({
  name: 'TeamInvitation',
  tableName: 'team_invitations',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    team: () => p.manyToOne(Team).deleteRule('cascade'),
    email: p.string(),
    role: p.enum(TEAM_ROLES),
    invitedBy: p.uuid().nullable(),
    status: p.enum(INVITATION_STATUSES).default('PENDING'),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    answeredAt: p.datetime().nullable(),
  },
});

export class TeamInvitation extends TeamInvitationSchema.class {}
TeamInvitationSchema.setClass(TeamInvitation);

/** What happened to a team, for its owners: append-only, written by the team services. */
const TeamAuditEntrySchema = defineEntity({
  name: 'TeamAuditEntry',
  tableName: 'team_audit',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    teamId: p.uuid(),
    actorDeveloperId: p.uuid().nullable(),
    action: p.string(),
    target: p.string().nullable(),
    details: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class TeamAuditEntry extends TeamAuditEntrySchema.class {}
TeamAuditEntrySchema.setClass(TeamAuditEntry);
