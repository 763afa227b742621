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
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'OVERLOADED'
  | 'INTERNAL';

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
export const validationFailed = (detail: string, errors?: FieldError[]) =>
  new ApiError(400, 'VALIDATION_FAILED', detail, errors);

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
    type: `https://docs.marketplace.example/problems/${error.code.toLowerCase().replaceAll('_', '-')}`,
    title: titles[error.status] ?? 'Error',
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
    ...(error.errors?.length ? { errors: error.errors } : {}),
  };
}
