import { t, type Static } from 'elysia';
import { SingleLine, Timestamp, Uuid } from '../../http/schemas.ts';
import { EXPECTED } from '../../http/validation-messages.ts';

export const CreateTrustedPublisherBody = t.Object(
  {
    issuer: SingleLine(1, 200, 'The CI identity provider, as its tokens name it in `iss` (one of TRUSTED_PUBLISHING_ISSUERS)'),
    repository: t.String({
      maxLength: 200,
      pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$',
      [EXPECTED]: 'a repository as owner/name',
      description: 'The repository the workflow runs in, as owner/name (compared case-insensitively)',
      examples: ['acme/focus-timer'],
    }),
    workflow: t.String({
      maxLength: 200,
      pattern: '^[A-Za-z0-9_.-]+\\.ya?ml$',
      [EXPECTED]: 'a workflow file name such as publish.yml',
      description: 'The workflow file under .github/workflows/',
      examples: ['publish.yml'],
    }),
    environment: t.Optional(SingleLine(1, 255, 'A deployment environment the job must run in; any when omitted')),
  },
  {
    additionalProperties: false,
    description: 'The CI workflow to trust: its identity provider, repository, workflow file and (optionally) environment',
    examples: [
      {
        issuer: 'https://token.actions.githubusercontent.com',
        repository: 'acme/focus-timer',
        workflow: 'publish.yml',
        environment: 'production',
      },
    ],
  },
);
export type CreateTrustedPublisherInput = Static<typeof CreateTrustedPublisherBody>;

export const TrustedPublisherView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    issuer: t.String(),
    repository: t.String(),
    workflow: t.String(),
    environment: t.Union([t.String(), t.Null()]),
    createdAt: Timestamp,
  },
  { description: 'A CI workflow allowed to publish this app without a stored key' },
);
export type TrustedPublisherView = Static<typeof TrustedPublisherView>;

export const TrustedPublisherParams = t.Object({ id: Uuid, publisherId: Uuid });

export const TokenExchangeBody = t.Object(
  { token: t.String({ minLength: 1, maxLength: 8192, description: 'The OIDC ID token the CI job obtained' }) },
  {
    additionalProperties: false,
    description: "The CI job's OIDC token, requested with the audience the service expects",
    // The shape of a job's token (header.claims.signature); a real one is minted by the CI provider for each job.
    examples: [
      {
        token: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImtleS0xIn0.eyJpc3MiOiJodHRwczovL3Rva2VuLmFjdGlvbnMuZ2l0aHVidXNlcmNvbnRlbnQuY29tIn0.c2lnbmF0dXJl',
      },
    ],
  },
);

export const ExchangedKey = t.Object(
  {
    key: t.String({ description: 'An API key with APP_READ and APP_UPDATE for this one app. Shown only here.' }),
    expiresAt: Timestamp,
    appId: t.String({ format: 'uuid' }),
  },
  { description: 'A 15-minute API key for the one app the workflow publishes' },
);
export type ExchangedKey = Static<typeof ExchangedKey>;
