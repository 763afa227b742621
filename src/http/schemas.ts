import { t, type TSchema } from 'elysia';
import { FormatRegistry } from '@sinclair/typebox';
import { EXPECTED, PARAMETER } from './validation-messages.ts';

/**
 * Building blocks shared by every feature's `*.model.ts`, so bounds and formats are stated once
 * and the same schema validates requests, types handlers and documents the OpenAPI.
 */

// Control characters are refused in all text; multi-line fields may still hold tab, LF and CR.
const SINGLE_LINE = '^[^\\u0000-\\u001F\\u007F]*$';
const MULTI_LINE = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$';

const characters = (min: number, max: number) =>
  min > 0 ? `${min} to ${max.toLocaleString('en')} characters` : `at most ${max.toLocaleString('en')} characters`;

export const SingleLine = (minLength: number, maxLength: number, description?: string) =>
  t.String({
    minLength,
    maxLength,
    pattern: SINGLE_LINE,
    [EXPECTED]: `text of ${characters(minLength, maxLength)} on one line, without control characters`,
    ...(description ? { description } : {}),
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
});

// Numbers in query strings are decimal digits: Elysia's own formats accept anything `Number()`
// reads ("0x10", "1e2", " 5"), which would quietly mean something the caller did not write.
FormatRegistry.Set('integer', (value) => /^-?[0-9]{1,16}$/.test(value));
FormatRegistry.Set('numeric', (value) => /^-?[0-9]{1,16}(\.[0-9]+)?$/.test(value));

export const IdParams = t.Object({ id: Uuid });

export const Timestamp = t.String({ format: 'date-time' });
export const NullableTimestamp = t.Union([Timestamp, t.Null()]);

/** An optional field that `null` clears (PUT semantics). */
export const Clearable = <T extends TSchema>(schema: T) => t.Optional(t.Union([schema, t.Null()]));

export const ProblemSchema = t.Object(
  {
    type: t.String(),
    title: t.String(),
    status: t.Integer(),
    detail: t.String(),
    code: t.String(),
    requestId: t.String(),
    errors: t.Optional(t.Array(t.Object({ path: t.String(), message: t.String() }))),
  },
  { description: 'RFC 9457 problem details' },
);

/**
 * The 429 a rate-limited route may answer, with the headers every limited response carries;
 * `limits` says in words which limits apply (a disabled one, 0, is left out). The OpenAPI generator
 * reads `headers` off the schema.
 */
export const rateLimitedProblem = (limits: string[]) =>
  t.Object(ProblemSchema.properties, {
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

/** Error responses documented for a route, by status. */
export const problems = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ProblemSchema])) as Record<number, typeof ProblemSchema>;

export const DataList = <T extends TSchema>(item: T) => t.Object({ data: t.Array(item) });

/** A whole-number query parameter; its schema carries its name, which its error then shows (`validation-messages.ts`). */
export const QueryInteger = (name: string, options: { minimum?: number; maximum?: number; default?: number; description?: string }) =>
  t.Optional(t.Integer({ ...options, [PARAMETER]: name }));

export const PageQuery = {
  page: QueryInteger('page', { minimum: 1, default: 1 }),
  limit: QueryInteger('limit', { minimum: 1, maximum: 100, default: 20 }),
};

export const Paginated = <T extends TSchema>(item: T) =>
  t.Object({
    data: t.Array(item),
    pagination: t.Object({ page: t.Integer(), limit: t.Integer(), total: t.Integer(), totalPages: t.Integer() }),
  });
