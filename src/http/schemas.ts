import { t, type TSchema } from 'elysia';
import { FormatRegistry, Type, type IntegerOptions } from '@sinclair/typebox';
import { EXPECTED, PARAMETER } from './validation-messages.ts';
import { ERROR_CODES, PROBLEM_TYPES, type ErrorCode } from './problem.ts';

/**
 * Building blocks shared by every feature's `*.model.ts`, so bounds and formats are stated once
 * and the same schema validates requests, types handlers and documents the OpenAPI.
 */

// Control characters are refused in all text; multi-line fields may still hold tab, LF and CR.
const SINGLE_LINE = '^[^\\u0000-\\u001F\\u007F]*$';
const MULTI_LINE = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$';

const characters = (min: number, max: number) =>
  min > 0 ? `${min} to ${max.toLocaleString('en')} characters` : `at most ${max.toLocaleString('en')} characters`;

/** `example` is what the API document shows for the field (without one, Swagger UI makes one up from the pattern). */
export const SingleLine = (minLength: number, maxLength: number, description?: string, example?: string) =>
  t.String({
    minLength,
    maxLength,
    pattern: SINGLE_LINE,
    [EXPECTED]: `text of ${characters(minLength, maxLength)} on one line, without control characters`,
    ...(description ? { description } : {}),
    ...(example ? { examples: [example] } : {}),
  });

export const MultiLine = (maxLength: number, description?: string) =>
  t.String({
    maxLength,
    pattern: MULTI_LINE,
    [EXPECTED]: `text of ${characters(0, maxLength)}, without control characters other than tab and line breaks`,
    ...(description ? { description } : {}),
  });

/** Absolute http(s) URL; whether https is required is the URL policy's call (`modules/apps/url-policy.ts`). */
export const HttpUrl = (description?: string) =>
  t.String({
    maxLength: 2048,
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+[^\\s]*$',
    [EXPECTED]: 'an absolute http:// or https:// URL of at most 2,048 characters',
    ...(description ? { description } : {}),
  });

export const Email = () =>
  t.String({
    maxLength: 254,
    pattern: '^[^\\s@\\u0000-\\u001F\\u007F]+@[^\\s@\\u0000-\\u001F\\u007F]+\\.[^\\s@\\u0000-\\u001F\\u007F]+$',
    [EXPECTED]: 'an e-mail address of at most 254 characters',
    description: 'E-mail address',
  });

export const Uuid = t.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  [EXPECTED]: 'a UUID',
  description: 'UUID',
  examples: ['0193a5c2-7b4e-7c8d-9e0f-1a2b3c4d5e6f'],
});

/**
 * A JSON integer, for bodies and responses. Elysia's `t.Integer` is a transform that also takes a
 * numeric string (for query strings), which the API document then shows as "string or integer"
 * and generated clients type as `string | number`; only query parameters use that one.
 */
export const Integer = (options?: IntegerOptions) => Type.Integer(options);

// Numbers in query strings are decimal digits: Elysia's own formats accept anything `Number()`
// reads ("0x10", "1e2", " 5"), which would quietly mean something the caller did not write.
FormatRegistry.Set('integer', (value) => /^-?[0-9]{1,16}$/.test(value));
FormatRegistry.Set('numeric', (value) => /^-?[0-9]{1,16}(\.[0-9]+)?$/.test(value));

export const IdParams = t.Object({ id: Uuid });

export const Timestamp = t.String({ format: 'date-time' });
export const NullableTimestamp = t.Union([Timestamp, t.Null()]);

/** An optional field that `null` clears (PUT semantics). */
export const Clearable = <T extends TSchema>(schema: T) => t.Optional(t.Union([schema, t.Null()]));

const problemProperties = (codes: readonly ErrorCode[]) => ({
  type: t.String({
    format: 'uri',
    description: 'Where the code is explained: `/problems/<code>` on this service',
    examples: ['http://localhost:3000/problems/APP_NOT_EDITABLE'],
  }),
  title: t.String({ description: 'The HTTP reason phrase', examples: ['Conflict'] }),
  status: Integer({ description: 'The HTTP status', examples: [409] }),
  detail: t.String({
    description: 'What went wrong with this request, in words',
    examples: ['An APPROVED app cannot be edited; open a revision instead'],
  }),
  code: t.UnionEnum(codes as [ErrorCode, ...ErrorCode[]], { description: 'Stable, machine-readable: branch on this', default: undefined }),
  requestId: t.String({ description: 'Quote it to support; also in `X-Request-Id`', examples: ['01938f7e-2c4b-7d1a-9b3c-5e6f7a8b9c0d'] }),
  errors: t.Optional(
    t.Array(
      t.Object({
        path: t.String({ description: 'The field, as `screenshots[1].url`', examples: ['screenshots[1].url'] }),
        message: t.String({ examples: ['must be an absolute http:// or https:// URL of at most 2,048 characters'] }),
      }),
      { description: 'Each field that was refused, and why (validation problems)' },
    ),
  ),
});

/** RFC 9457 problem details, as every 4xx and 5xx answer carries them (`application/problem+json`). Named `Problem` in the document. */
export const ProblemSchema = t.Object(problemProperties(ERROR_CODES), { description: 'RFC 9457 problem details' });

/** The codes a documented problem response stands for; the API document turns them into the operation's `code` enum. */
export const PROBLEM_CODES = 'x-problem-codes';
/** On a success schema whose body is not JSON: the media types it is sent as (images, say). */
export const MEDIA_TYPES = 'x-media-types';
/** In a route's `detail`: the codes its auth guard may refuse with (the guard declares them where it throws them). */
export const GUARD_PROBLEMS = 'x-guard-problems';

const problemOf = (codes: readonly ErrorCode[], options: Record<string, unknown> = {}) =>
  t.Object(problemProperties(codes), { description: codes.map((code) => `\`${code}\``).join(', '), [PROBLEM_CODES]: codes, ...options });

/**
 * The 429 a rate-limited route may answer, with the headers every limited response carries;
 * `limits` says in words which limits apply (a disabled one, 0, is left out). The OpenAPI generator
 * reads `headers` off the schema.
 */
export const rateLimitedProblem = (limits: string[]) =>
  problemOf(['RATE_LIMITED'], {
    description:
      limits.length > 0
        ? `Too many requests: ${limits.join('; ')}. Wait for \`Retry-After\` seconds.`
        : 'Too many requests (no rate limit is configured in this deployment).',
    headers: {
      'retry-after': t.String({ description: 'Seconds until a request may succeed' }),
      'ratelimit-limit': t.String({ description: 'Requests allowed in the window' }),
      'ratelimit-remaining': t.String({ description: 'Requests left in the window (0 here)' }),
      'ratelimit-reset': t.String({ description: 'Seconds until the window resets' }),
    },
  });

/**
 * The problems a route's handler (its services) may answer with, by code: declared once in the
 * route, they become its error responses by status, each with its `code` enum. What every route
 * of a kind may answer (the auth guard's refusals, validation, 413/415 for bodies, 503) the API
 * document adds itself (`modules/api-docs/api-document.ts`).
 */
export function problems(...codes: ErrorCode[]): Record<number, ReturnType<typeof problemOf>> {
  const byStatus = new Map<number, ErrorCode[]>();
  // A code may come twice (a route's own and those of a check it calls): it is listed once.
  for (const code of new Set(codes)) byStatus.set(PROBLEM_TYPES[code].status, [...(byStatus.get(PROBLEM_TYPES[code].status) ?? []), code]);
  return Object.fromEntries([...byStatus].map(([status, codesOfStatus]) => [status, problemOf(codesOfStatus)]));
}

/** A whole list; `description` says of what, for the API document. */
export const DataList = <T extends TSchema>(item: T, description: string) => t.Object({ data: t.Array(item) }, { description });

/** A whole-number query parameter; its schema carries its name, which its error then shows (`validation-messages.ts`). */
export const QueryInteger = (name: string, options: { minimum?: number; maximum?: number; default?: number; description?: string }) =>
  t.Optional(t.Integer({ ...options, [PARAMETER]: name }));

export const PageQuery = {
  page: QueryInteger('page', { minimum: 1, default: 1 }),
  limit: QueryInteger('limit', { minimum: 1, maximum: 100, default: 20 }),
};

/** One page of a list; `description` says of what, for the API document. */
export const Paginated = <T extends TSchema>(item: T, description: string) =>
  t.Object(
    {
      data: t.Array(item),
      pagination: t.Object({
        page: Integer({ examples: [1] }),
        limit: Integer({ examples: [20] }),
        total: Integer({ description: 'Items across all pages', examples: [42] }),
        totalPages: Integer({ examples: [3] }),
      }),
    },
    { description },
  );
