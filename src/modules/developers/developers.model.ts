import { t, type Static } from 'elysia';
import { Clearable, Email, HttpUrl, MultiLine, SingleLine, Timestamp } from '../../http/schemas.ts';
import { DEVELOPER_STATUSES } from './developer.entity.ts';

const Name = SingleLine(1, 120, 'Display name of the developer');
const CompanyName = SingleLine(1, 120);
const Bio = MultiLine(2000, 'Brief description of the developer or company');

export const RegisterDeveloperBody = t.Object(
  {
    name: Name,
    email: Email(),
    platformUserId: SingleLine(1, 128, 'Account id in the task-management product; must equal the token subject'),
    companyName: t.Optional(CompanyName),
    websiteUrl: t.Optional(HttpUrl()),
    bio: t.Optional(Bio),
  },
  {
    additionalProperties: false,
    description: 'Your developer profile, for the platform account the OAuth token was issued to',
    examples: [
      {
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        platformUserId: 'u-42',
        companyName: 'Analytical Apps Ltd',
        websiteUrl: 'https://analytical.example.com',
        bio: 'Small tools for focused teams.',
      },
    ],
  },
);
export type RegisterDeveloperInput = Static<typeof RegisterDeveloperBody>;

/** PUT semantics: an omitted field is unchanged, `null` clears an optional one. */
export const UpdateDeveloperBody = t.Object(
  {
    name: t.Optional(Name),
    email: t.Optional(Email()),
    companyName: Clearable(CompanyName),
    websiteUrl: Clearable(HttpUrl()),
    bio: Clearable(Bio),
  },
  {
    additionalProperties: false,
    description: 'The profile fields to change: an omitted field is unchanged, `null` clears an optional one',
    examples: [{ companyName: 'Analytical Apps Ltd', bio: 'Small tools for focused teams, since 2019.' }],
  },
);
export type UpdateDeveloperInput = Static<typeof UpdateDeveloperBody>;

export const DeveloperProfile = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    name: t.String(),
    email: t.String(),
    platformUserId: t.String(),
    companyName: t.Union([t.String(), t.Null()]),
    websiteUrl: t.Union([t.String(), t.Null()]),
    bio: t.Union([t.String(), t.Null()]),
    status: t.UnionEnum(DEVELOPER_STATUSES),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A developer profile as its owner sees it' },
);
export type DeveloperProfile = Static<typeof DeveloperProfile>;
