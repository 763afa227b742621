import { t, type Static } from 'elysia';
import { Clearable, HttpUrl, Integer, MultiLine, NullableTimestamp, SingleLine, Timestamp, Uuid } from '../../http/schemas.ts';
import { EXPECTED } from '../../http/validation-messages.ts';
import { APP_STATUSES, CATEGORIES, DATA_LOCATIONS, ENVIRONMENTS } from './app.entity.ts';

export const MAX_SCREENSHOTS = 6;
export const MIN_SCREENSHOTS_TO_SUBMIT = 2;

// Elysia's UnionEnum defaults to its first value, which would fill in an omitted field (a PUT
// without `category` would reset it; a create without `environment` would pass): no default.
export const CategorySchema = t.UnionEnum(CATEGORIES, { default: undefined });
export const EnvironmentSchema = t.UnionEnum(ENVIRONMENTS, { default: undefined });
export const AppStatusSchema = t.UnionEnum(APP_STATUSES);

export const ScreenshotInput = t.Object(
  {
    url: HttpUrl('Publicly accessible image, at least 1280x720'),
    caption: t.Optional(t.Union([SingleLine(0, 200), t.Null()])),
    order: t.Optional(Integer({ minimum: 0, maximum: 1000, description: 'Display position, zero-based' })),
  },
  { additionalProperties: false },
);

const Screenshots = t.Array(ScreenshotInput, { maxItems: MAX_SCREENSHOTS, description: '2 to 6 are needed to submit' });
const Name = SingleLine(1, 80);
const Description = SingleLine(1, 280, 'One or two sentences shown in listings');
const LongDescription = MultiLine(20_000, 'Markdown; rendered and sanitised into longDescriptionHtml');
const OAuthClientId = SingleLine(1, 200, 'A client that support registered to you');
const ReviewNotes = MultiLine(5_000, 'Notes for reviewers (test accounts, how to try the app); never public');

export const MAX_THIRD_PARTIES = 20;

/** One platform OAuth scope the app asks its users for, and why; which scopes exist is configured (`PLATFORM_SCOPES`). */
export const PermissionInput = t.Object(
  {
    scope: t.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[a-z][a-z0-9_.-]*(:[a-z0-9_.-]+)*$',
      [EXPECTED]: 'a platform scope such as tasks:read',
      description: 'A platform OAuth scope, e.g. tasks:read',
      examples: ['tasks:read'],
    }),
    reason: SingleLine(1, 200, 'Why the app needs it, as users will read it'),
  },
  { additionalProperties: false },
);
const Permissions = t.Array(PermissionInput, {
  maxItems: 50,
  description: 'The platform scopes the app asks for, each once, with a reason; needed to submit an app with an OAuth client',
});

const DataLocation = t.UnionEnum(DATA_LOCATIONS, { default: undefined });

/** What the app does with the data it reads: stored or not, where, who else gets it, and for how long. */
export const DataHandlingInput = t.Object(
  {
    storesUserData: t.Boolean({ description: 'Whether the app keeps workspace data on its own servers' }),
    locations: t.Array(DataLocation, { maxItems: DATA_LOCATIONS.length, uniqueItems: true, description: 'Where stored data lives' }),
    thirdParties: t.Array(
      t.Object(
        {
          name: SingleLine(1, 100, 'The company', 'Acme Mail'),
          purpose: SingleLine(1, 200, 'What they receive the data for', 'Sending the daily summary e-mails'),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_THIRD_PARTIES, description: `Other companies the data is shared with (at most ${MAX_THIRD_PARTIES})` },
    ),
    retentionDays: t.Union([t.Integer({ minimum: 0, maximum: 36_500 }), t.Null()], {
      description: 'How long stored data is kept, in days; null: until the workspace removes the app',
    }),
  },
  { additionalProperties: false, description: 'What the app does with the workspace data it reads; needed to submit an app with an OAuth client' },
);
export type DataHandlingInput = Static<typeof DataHandlingInput>;

export const CreateAppBody = t.Object(
  {
    name: Name,
    description: Description,
    longDescription: t.Optional(LongDescription),
    category: CategorySchema,
    environment: EnvironmentSchema,
    logoUrl: t.Optional(HttpUrl('Square PNG or JPG, at least 512x512')),
    bannerUrl: t.Optional(HttpUrl('PNG or JPG, 1200x600')),
    websiteUrl: t.Optional(HttpUrl()),
    supportUrl: t.Optional(HttpUrl()),
    privacyPolicyUrl: t.Optional(HttpUrl()),
    termsOfServiceUrl: t.Optional(HttpUrl()),
    oauthClientId: t.Optional(OAuthClientId),
    screenshots: t.Optional(Screenshots),
    reviewNotes: t.Optional(ReviewNotes),
    permissions: t.Optional(Permissions),
    dataHandling: t.Optional(DataHandlingInput),
    teamId: t.Optional(
      t.Union([Uuid, t.Null()], {
        description:
          'The team that will own the app (you must be its maintainer or owner). Omitted: personal, or the team of a team key; null: personal.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'A new listing. It starts as a DRAFT, which may be incomplete; submitting needs a logo and 2 to 6 screenshots.',
    examples: [
      {
        name: 'Focus Timer',
        description: 'Pomodoro sessions for your tasks.',
        longDescription: '## Stay on task\n\nStart a 25-minute session from any task; breaks are counted for you.',
        category: 'PRODUCTIVITY',
        environment: 'production',
        logoUrl: 'https://cdn.example.com/focus-timer/logo.png',
        websiteUrl: 'https://focustimer.example.com',
        supportUrl: 'https://focustimer.example.com/support',
        privacyPolicyUrl: 'https://focustimer.example.com/privacy',
        screenshots: [
          { url: 'https://cdn.example.com/focus-timer/session.png', caption: 'A session in progress' },
          { url: 'https://cdn.example.com/focus-timer/summary.png', caption: 'The daily summary' },
        ],
        reviewNotes: 'Sign in with demo@example.com / demo-password to try it.',
      },
    ],
  },
);
export type CreateAppInput = Static<typeof CreateAppBody>;

/** PUT and revisions: every field optional, `null` clears an optional one; `environment` is fixed at creation. */
export const UpdateAppBody = t.Object(
  {
    name: t.Optional(Name),
    description: t.Optional(Description),
    longDescription: Clearable(LongDescription),
    category: t.Optional(CategorySchema),
    logoUrl: Clearable(HttpUrl()),
    bannerUrl: Clearable(HttpUrl()),
    websiteUrl: Clearable(HttpUrl()),
    supportUrl: Clearable(HttpUrl()),
    privacyPolicyUrl: Clearable(HttpUrl()),
    termsOfServiceUrl: Clearable(HttpUrl()),
    oauthClientId: Clearable(OAuthClientId),
    screenshots: t.Optional(Screenshots),
    reviewNotes: Clearable(ReviewNotes),
    permissions: Clearable(Permissions),
    dataHandling: Clearable(DataHandlingInput),
  },
  {
    additionalProperties: false,
    description: 'The fields to change: an omitted field is unchanged, `null` clears an optional one; `environment` is fixed at creation.',
    examples: [{ description: 'Pomodoro sessions for your tasks, with a daily summary.', supportUrl: 'https://focustimer.example.com/help' }],
  },
);
export type UpdateAppInput = Static<typeof UpdateAppBody>;

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);

export const ScreenshotView = t.Object({
  url: t.String({ description: 'The copy reviewers saw (`PUBLIC_URL/assets/…`) once approved, else the URL given' }),
  caption: Nullable(t.String()),
  order: Integer(),
});

export const PermissionView = t.Object({
  scope: t.String(),
  label: t.String({ description: 'What the scope lets the app do, for "This app will be able to…"' }),
  reason: t.String(),
});
export type PermissionView = Static<typeof PermissionView>;

/** Fields every audience sees. */
const appFields = {
  id: t.String({ format: 'uuid' }),
  slug: t.String(),
  name: t.String(),
  description: t.String(),
  longDescription: Nullable(t.String()),
  longDescriptionHtml: Nullable(t.String({ description: 'Sanitised HTML rendered from longDescription' })),
  category: CategorySchema,
  environment: EnvironmentSchema,
  logoUrl: Nullable(t.String()),
  bannerUrl: Nullable(t.String()),
  websiteUrl: Nullable(t.String()),
  supportUrl: Nullable(t.String()),
  privacyPolicyUrl: Nullable(t.String()),
  termsOfServiceUrl: Nullable(t.String()),
  oauthClientId: Nullable(t.String()),
  screenshots: t.Array(ScreenshotView),
  permissions: Nullable(
    t.Array(PermissionView, { description: "The platform scopes the app asks for, in the platform's order; null: not declared" }),
  ),
  dataHandling: Nullable(DataHandlingInput),
  status: AppStatusSchema,
  featured: t.Boolean(),
  installCount: Integer({ description: 'Distinct installers ever' }),
  activeInstalls: Integer({ description: 'Installers whose latest act is an install (not uninstalled since)' }),
  reviewCount: Integer(),
  averageRating: t.Number({ description: '0 when there are no reviews' }),
  version: Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const ReviewStandingView = t.Object(
  {
    queuePosition: Integer({ minimum: 1, description: 'Place in the review queue, oldest first; 1 is reviewed next' }),
    expectedDecisionBy: t.String({
      format: 'date-time',
      description:
        'When a decision is expected: waiting since + the median decision time of the last 30 days (48 h until there is history); never earlier than now',
    }),
  },
  { description: 'Where a submission or revision stands in the review queue' },
);
export type ReviewStandingView = Static<typeof ReviewStandingView>;

export const AssetCheckView = t.Object(
  {
    field: t.String({ description: 'logoUrl, bannerUrl or screenshots[i]' }),
    url: t.String(),
    ok: t.Boolean(),
    format: Nullable(t.String()),
    width: Nullable(Integer()),
    height: Nullable(Integer()),
    problems: t.Array(t.String()),
    mirrorUrl: Nullable(
      t.String({
        description:
          'The copy of the image this check stored (what reviewers see, and what an approval publishes), at the address it is public at once a live listing shows it; until then its owner reads it at `GET /api/dev/apps/{id}/assets/{file}` (the same file name). Null: no copy (not fetchable, too large, past 40 megapixels, not PNG or JPEG), so the listing shows the image from its own URL.',
      }),
    ),
    checkedAt: Timestamp,
  },
  { description: 'What the check of one listed image found (advisory: submission and approval do not wait for it)' },
);

export const PendingRevisionView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    changes: t.Record(t.String(), t.Unknown(), { description: 'The fields the revision changes, as PUT takes them' }),
    version: Integer({ description: 'Bumped each time another proposal is merged in; a reviewer decides a given version' }),
    status: t.Literal('PENDING'),
    addedPermissions: t.Array(PermissionView, {
      description: 'Scopes the revision asks for that the live listing does not: public only once approved',
    }),
    review: ReviewStandingView,
    assetChecks: t.Array(AssetCheckView, { description: 'Checks of the images the listing would show once the revision is approved' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A proposed change to an approved app, waiting for review' },
);

/** What the owning developer sees. */
export const OwnerAppView = t.Object(
  {
    ...appFields,
    submittedAt: NullableTimestamp,
    reviewedAt: NullableTimestamp,
    rejectionReason: Nullable(t.String()),
    reviewNotes: Nullable(t.String()),
    assetChecks: t.Array(AssetCheckView, {
      description: 'Advisory results of the checks of the images listed now; an image without an entry has not been checked yet',
    }),
    pendingRevision: Nullable(PendingRevisionView),
    review: t.Union([ReviewStandingView, t.Null()], { description: 'Set while the app is PENDING: its place in the review queue' }),
    team: t.Union([t.Object({ id: t.String({ format: 'uuid' }), name: t.String() }), t.Null()], {
      description: 'The team that owns the app; null for a personal app',
    }),
  },
  {
    description: 'An app listing as its developer sees it: with its review notes, asset checks, pending revision and place in the review queue',
  },
);
export type OwnerAppView = Static<typeof OwnerAppView>;

export const PublicDeveloperView = t.Object({
  name: t.String(),
  companyName: Nullable(t.String()),
  websiteUrl: Nullable(t.String()),
});

export const PublisherView = t.Object(
  {
    name: t.String(),
    websiteUrl: Nullable(t.String()),
    verifiedDomain: Nullable(t.String({ description: 'A domain the publishing team proved it controls; null for a person' })),
  },
  { description: 'Who publishes the app: its team for a team app, else its developer' },
);

/** What the public catalogue shows. */
export const PublicAppView = t.Object(
  { ...appFields, developer: PublicDeveloperView, publisher: PublisherView },
  { description: 'An approved app as the public catalogue shows it' },
);
export type PublicAppView = Static<typeof PublicAppView>;

/** Asset checks that are pending, failed to fetch, or found the wrong format or size, each at its field's path. */
const Warnings = t.Array(
  t.Object({ path: t.String({ examples: ['screenshots[1].url'] }), message: t.String({ examples: ['could not fetch: bad status 404'] }) }),
  {
    description: 'What the asset checks found wrong or have not checked yet: advisory, the submission does not wait for them',
  },
);

export const SubmittedAppView = t.Object(
  { ...OwnerAppView.properties, warnings: Warnings },
  { description: 'The app, now PENDING, with `warnings` about its images as they were when submitted (every image is checked again now)' },
);
export type SubmittedAppView = Static<typeof SubmittedAppView>;

export const PreflightView = t.Object(
  {
    ready: t.Boolean({ description: 'Whether submitting now would succeed' }),
    errors: t.Array(t.Object({ path: t.String(), message: t.String() }), { description: 'What stands in the way; empty when ready' }),
    warnings: Warnings,
  },
  { description: 'The submission checklist: what would refuse a submission now (`errors`) and what a reviewer would notice (`warnings`)' },
);
