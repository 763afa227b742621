import { publicLink } from '../lib/public-url.ts';

/**
 * Every failure leaves the service as RFC 9457 problem+json. Domain code throws `ApiError`;
 * the HTTP layer turns it (and anything unexpected) into the wire shape.
 */
export interface FieldError {
  path: string;
  message: string;
}

export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'SUBMISSION_INCOMPLETE'
  | 'UNKNOWN_OAUTH_CLIENT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNAUTHENTICATED'
  | 'INSUFFICIENT_SCOPE'
  | 'DEVELOPER_NOT_VERIFIED'
  | 'DEVELOPER_SUSPENDED'
  | 'API_KEY_REQUIRED'
  | 'OAUTH_TOKEN_REQUIRED'
  | 'PLATFORM_USER_MISMATCH'
  | 'INSTALL_REQUIRED'
  | 'NOT_INSTALLED'
  | 'OWN_APP'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'APP_UNAVAILABLE'
  | 'APP_NOT_EDITABLE'
  | 'INVALID_STATE_TRANSITION'
  | 'DEVELOPER_EXISTS'
  | 'STALE_VERSION'
  | 'WARNINGS_NOT_CHECKED'
  | 'TRUSTED_PUBLISHER_EXISTS'
  | 'CONFLICT'
  | 'LIMIT_EXCEEDED'
  | 'TEAM_ROLE_REQUIRED'
  | 'TEAM_SUSPENDED'
  | 'TEAM_NOT_EMPTY'
  | 'ALREADY_MEMBER'
  | 'LAST_OWNER'
  | 'DOMAIN_NOT_VERIFIED'
  | 'DOMAIN_TAKEN'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'OVERLOADED'
  | 'INTERNAL';

/**
 * What each code means and what a client should do about it: the source of the status a code is
 * sent with in the API document, of its `code` enums, and of the page its `type` URI leads to
 * (`/problems/<code>`). A new code is added here and to `ErrorCode`.
 */
export interface ProblemType {
  status: number;
  meaning: string;
  action: string;
}

export const PROBLEM_TYPES: Record<ErrorCode, ProblemType> = {
  VALIDATION_FAILED: {
    status: 400,
    meaning:
      'The request (its body, path or query) does not have the shape or values this operation takes; `errors` names each field and what it must be.',
    action: 'Correct the fields `errors` lists and send the request again. Nothing was changed.',
  },
  SUBMISSION_INCOMPLETE: {
    status: 400,
    meaning: 'The listing lacks what a review needs (a logo, 2 to 6 screenshots…); `errors` names what is missing.',
    action: 'Complete the listing (PUT, or the revision) and try again; `POST /api/dev/apps/{id}/preflight` shows the checklist without submitting.',
  },
  UNKNOWN_OAUTH_CLIENT: {
    status: 400,
    meaning: '`oauthClientId` does not name an OAuth client that support registered to you.',
    action: 'Use the id of one of your registered OAuth clients, or ask support to register yours.',
  },
  UNAUTHENTICATED: {
    status: 401,
    meaning:
      'No valid credential came with the request: the bearer token is missing, malformed, expired or revoked, or is the wrong kind for this operation.',
    action: 'Send `Authorization: Bearer <token>` with a valid API key (`mk_…`) or platform OAuth token, as the operation says.',
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    meaning: 'The API key is valid but lacks the scope this operation needs.',
    action: 'Mint a key with that scope (`POST /api/dev/api-keys`) or use the platform OAuth token.',
  },
  DEVELOPER_NOT_VERIFIED: {
    status: 403,
    meaning: 'An administrator has not verified your developer account yet, and this action needs a verified one.',
    action: 'Wait for verification (the target is 24 hours); you are e-mailed when it happens.',
  },
  DEVELOPER_SUSPENDED: {
    status: 403,
    meaning: 'Your developer account is suspended, so this action is refused.',
    action: 'Contact support; your listings and keys come back when the account is reinstated.',
  },
  API_KEY_REQUIRED: {
    status: 403,
    meaning: 'This operation takes an API key, and a platform OAuth token was sent.',
    action: 'Send one of your API keys (`mk_…`) instead.',
  },
  OAUTH_TOKEN_REQUIRED: {
    status: 403,
    meaning: 'This change needs the platform OAuth token; an API key cannot make it.',
    action: 'Send the platform OAuth token of your account.',
  },
  PLATFORM_USER_MISMATCH: {
    status: 403,
    meaning: '`platformUserId` is not the account the OAuth token was issued for.',
    action: "Send the id of the signed-in platform account (the token's subject).",
  },
  INSTALL_REQUIRED: {
    status: 403,
    meaning: 'Only a user who installed the app while signed in may review it.',
    action: 'Install the app with the same platform token first.',
  },
  OWN_APP: {
    status: 403,
    meaning: "An app's developer cannot review their own app.",
    action: 'Nothing to do: reviews come from users.',
  },
  FORBIDDEN: {
    status: 403,
    meaning: 'The credential is valid but may not do this.',
    action: 'Use an account that may.',
  },
  NOT_FOUND: {
    status: 404,
    meaning: 'Nothing exists at this address for you: the id or slug is unknown, belongs to someone else, or (for a pending revision) there is none.',
    action: 'Check the id or slug; list your resources to find it.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    meaning: 'The path exists but does not answer this method; `Allow` lists those it does.',
    action: 'Use one of the methods in the `Allow` header.',
  },
  APP_UNAVAILABLE: {
    status: 410,
    meaning: 'The app was public once and is no longer available (suspended, or its developer is).',
    action: 'Stop linking to it; it may come back if it is relisted.',
  },
  APP_NOT_EDITABLE: {
    status: 409,
    meaning: 'An APPROVED or SUSPENDED app cannot be edited or deleted directly.',
    action: 'Propose the change as a revision (`POST /api/dev/apps/{id}/revisions`); to remove a live app, ask support.',
  },
  INVALID_STATE_TRANSITION: {
    status: 409,
    meaning: 'The app is in a state this action does not apply to (for example submitting an APPROVED app, or withdrawing one that is not PENDING).',
    action: 'Read the app (`GET /api/dev/apps/{id}`) and act on the state it is in.',
  },
  DEVELOPER_EXISTS: {
    status: 409,
    meaning: 'A developer with this platform account or e-mail address is already registered.',
    action: 'Use the existing profile (`GET /api/dev/me`).',
  },
  STALE_VERSION: {
    status: 409,
    meaning: 'What you decided on changed since you read it.',
    action: 'Read it again and decide on the version you now see.',
  },
  WARNINGS_NOT_CHECKED: {
    status: 400,
    meaning: 'The item has warnings (image problems, a look-alike name, new permissions) and the approval did not confirm they were checked.',
    action: 'Look at the warnings above the decision, then tick "I have checked the warnings" and approve again.',
  },
  NOT_INSTALLED: {
    status: 404,
    meaning: 'This installer never installed the app, so there is nothing to uninstall.',
    action: 'Send the same identity the install used: the platform OAuth token, or the same installationId.',
  },
  TEAM_ROLE_REQUIRED: {
    status: 403,
    meaning: 'You are a member of the team, but your role there does not allow this.',
    action: 'Ask one of the team’s owners for a stronger role (analyst reads, maintainer edits, owner manages).',
  },
  TEAM_SUSPENDED: {
    status: 403,
    meaning: 'The marketplace suspended this team: nobody can act for it, and its apps are not listed.',
    action: 'Contact the marketplace’s support.',
  },
  TEAM_NOT_EMPTY: {
    status: 409,
    meaning: 'A team that still owns apps cannot be deleted.',
    action: 'Transfer or delete its apps first.',
  },
  ALREADY_MEMBER: {
    status: 409,
    meaning: 'That person is already a member of the team.',
    action: 'Change their role instead of inviting them.',
  },
  LAST_OWNER: {
    status: 409,
    meaning: 'A team always keeps at least one owner.',
    action: 'Make another member an owner first.',
  },
  DOMAIN_NOT_VERIFIED: {
    status: 400,
    meaning: 'The token was not found at https://<domain>/.well-known/marketplace-publisher.txt.',
    action: 'Serve exactly the token you were given at that address, then verify again.',
  },
  DOMAIN_TAKEN: {
    status: 409,
    meaning: 'Another team has already verified this domain.',
    action: 'Verify a domain your team controls, or ask the marketplace’s support if the domain is yours.',
  },
  TRUSTED_PUBLISHER_EXISTS: {
    status: 409,
    meaning: 'This CI workflow (repository, workflow file and environment) already publishes an app; one workflow publishes one app.',
    action: 'Use another workflow file or environment for this app, or remove the workflow from the other app first.',
  },
  CONFLICT: {
    status: 409,
    meaning: 'The request conflicts with the current state of the resource (detail says how).',
    action: 'Read the resource again, then retry if it still makes sense.',
  },
  LIMIT_EXCEEDED: {
    status: 409,
    meaning: 'You already hold as many of these as allowed (10 active API keys, 10 webhook endpoints).',
    action: 'Revoke or delete one first.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    meaning: 'The request body is larger than this deployment accepts (1 MiB by default).',
    action: 'Send a smaller body; images are referenced by URL, never uploaded.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    meaning: 'The request body is not JSON, or not labelled `Content-Type: application/json`.',
    action: 'Send JSON with `Content-Type: application/json`.',
  },
  RATE_LIMITED: {
    status: 429,
    meaning: 'Too many requests in the current minute for one of the limits that apply (the 429 of each operation lists them).',
    action: 'Wait `Retry-After` seconds; `RateLimit-Remaining` and `RateLimit-Reset` tell you where you stand before that.',
  },
  INTERNAL: {
    status: 500,
    meaning: 'Something failed inside the service; nothing about the request is known to be wrong.',
    action: 'Retry later; if it persists, report the `requestId` to support.',
  },
  UNAVAILABLE: {
    status: 503,
    meaning: 'The service cannot reach its database right now.',
    action: 'Retry after `Retry-After` seconds; a write that got this answer did not happen.',
  },
  OVERLOADED: {
    status: 503,
    meaning: 'The service is too busy to answer in time.',
    action: 'Retry after `Retry-After` seconds, with backoff.',
  },
};

export const ERROR_CODES = Object.keys(PROBLEM_TYPES) as ErrorCode[];

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The reason phrase of a status, as problems carry it in `title`. */
export const statusTitle = (status: number) => titles[status] ?? 'Error';

/** Where a code's page is: `PUBLIC_URL` + `/problems/<code>`. */
export const problemTypeUri = (code: ErrorCode) => publicLink(`/problems/${code}`);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export const notFound = (what = 'Resource') => new ApiError(404, 'NOT_FOUND', `${what} not found`);
export const validationFailed = (detail: string, errors?: FieldError[]) => new ApiError(400, 'VALIDATION_FAILED', detail, errors);

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
  errors?: FieldError[];
}

export function problemBody(error: ApiError, requestId: string): ProblemBody {
  return {
    type: problemTypeUri(error.code),
    title: statusTitle(error.status),
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
    ...(error.errors?.length ? { errors: error.errors } : {}),
  };
}
