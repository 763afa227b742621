import { t, type Static } from 'elysia';
import { Clearable, Email, HttpUrl, Integer, SingleLine, Timestamp, Uuid } from '../../http/schemas.ts';
import { TEAM_ROLES } from './team.entity.ts';

// No default: an omitted role must be a 400, never silently the first one.
export const TeamRoleSchema = t.UnionEnum(TEAM_ROLES, {
  default: undefined,
  description:
    'owner (members, settings, transfers, deleting the team) ⊃ maintainer (create, edit, submit, revise and delete apps; webhooks; replies) ⊃ analyst (read apps and analytics)',
});

export const CreateTeamBody = t.Object(
  { name: SingleLine(1, 80, 'The publisher name shown on the team’s listings'), websiteUrl: t.Optional(HttpUrl()) },
  {
    additionalProperties: false,
    description: 'A new team; you become its owner',
    examples: [{ name: 'Focus Labs', websiteUrl: 'https://focuslabs.example.com' }],
  },
);
export type CreateTeamInput = Static<typeof CreateTeamBody>;

export const UpdateTeamBody = t.Object(
  { name: t.Optional(SingleLine(1, 80)), websiteUrl: Clearable(HttpUrl()) },
  {
    additionalProperties: false,
    description: 'The fields to change: an omitted field is unchanged, `null` clears the website',
    examples: [{ name: 'Focus Labs Ltd', websiteUrl: 'https://www.focuslabs.example.com' }],
  },
);
export type UpdateTeamInput = Static<typeof UpdateTeamBody>;

export const TeamView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    name: t.String(),
    websiteUrl: t.Union([t.String(), t.Null()]),
    role: TeamRoleSchema,
    memberCount: Integer(),
    appCount: Integer(),
    verifiedDomain: t.Union([t.String(), t.Null()], { description: 'A domain the team proved it controls; shown on its public listings' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A team, with your role in it' },
);
export type TeamView = Static<typeof TeamView>;

export const InviteBody = t.Object(
  { email: Email(), role: TeamRoleSchema },
  {
    additionalProperties: false,
    description: 'Whom to invite (the e-mail address of their developer profile) and as what',
    examples: [{ email: 'grace@example.com', role: 'maintainer' }],
  },
);
export type InviteInput = Static<typeof InviteBody>;

export const InvitationView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    teamId: t.String({ format: 'uuid' }),
    teamName: t.String(),
    email: t.String(),
    role: TeamRoleSchema,
    createdAt: Timestamp,
    expiresAt: Timestamp,
  },
  { description: 'A pending invitation to a team' },
);
export type InvitationView = Static<typeof InvitationView>;

export const AcceptedInvitation = t.Object({ team: TeamView, role: TeamRoleSchema }, { description: 'You are a member of the team, in this role' });

export const MemberView = t.Object(
  {
    developerId: t.String({ format: 'uuid' }),
    name: t.String(),
    email: t.String(),
    role: TeamRoleSchema,
    joinedAt: Timestamp,
  },
  { description: 'A member of a team' },
);
export type MemberView = Static<typeof MemberView>;

export const RoleBody = t.Object(
  { role: TeamRoleSchema },
  { additionalProperties: false, description: "The member's new role", examples: [{ role: 'analyst' }] },
);

export const TeamParams = t.Object({ id: Uuid });
export const InvitationParams = t.Object({ id: Uuid, invitationId: Uuid });
export const MemberParams = t.Object({ id: Uuid, developerId: Uuid });

export const DomainBody = t.Object(
  {
    domain: t.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$',
      description: 'A host name such as example.com (outside production with ALLOW_PRIVATE_FETCH, host:port)',
    }),
  },
  { additionalProperties: false, description: 'The domain the team claims', examples: [{ domain: 'focuslabs.example.com' }] },
);

export const DomainClaim = t.Object(
  {
    domain: t.String(),
    token: t.String({ description: 'Serve exactly this text at `url`' }),
    url: t.String(),
  },
  { description: 'Serve `token` at `url`, then verify the domain' },
);
export type DomainClaim = Static<typeof DomainClaim>;

export const TeamAuditView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    actor: t.Union([t.Object({ developerId: t.String({ format: 'uuid' }), name: t.String() }), t.Null()], {
      description: 'The member who acted; null for the marketplace’s administrators or an account since deleted',
    }),
    action: t.String(),
    target: t.Union([t.String(), t.Null()]),
    details: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]),
    createdAt: Timestamp,
  },
  { description: 'Something a member (or an administrator) did to the team' },
);
export type TeamAuditView = Static<typeof TeamAuditView>;

export const TransferBody = t.Object(
  { teamId: t.Union([Uuid, t.Null()], { description: 'The team to move the app to; null returns it to you personally' }) },
  {
    additionalProperties: false,
    description: 'Where the app goes: a team, or back to you',
    // null, because a team id cannot be written down in advance: this example returns a team app to its owner.
    examples: [{ teamId: null }],
  },
);

/** Named models, registered with `.model()` so the OpenAPI document refers to them by name. */
export const teamModels = {
  CreateTeamBody,
  UpdateTeamBody,
  TeamView,
  InviteBody,
  InvitationView,
  AcceptedInvitation,
  MemberView,
  RoleBody,
  DomainBody,
  DomainClaim,
  TeamAuditView,
  TransferBody,
};
