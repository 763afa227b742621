import { t, type TSchema } from 'elysia';

/**
 * Building blocks shared by every feature's `*.model.ts`, so bounds and formats are stated once
 * and the same schema validates requests, types handlers and documents the OpenAPI.
 */

// Control characters are refused in all text; multi-line fields may still hold tab, LF and CR.
const SINGLE_LINE = '^[^\\u0000-\\u001F\\u007F]*$';
const MULTI_LINE = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$';

export const SingleLine = (minLength: number, maxLength: number, description?: string) =>
  t.String({ minLength, maxLength, pattern: SINGLE_LINE, ...(description ? { description } : {}) });

export const MultiLine = (maxLength: number, description?: string) =>
  t.String({ maxLength, pattern: MULTI_LINE, ...(description ? { description } : {}) });

/** Absolute http(s) URL; https-only in production is checked by `assertHttpsInProduction`. */
export const HttpUrl = (description?: string) =>
  t.String({ maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+[^\\s]*$', ...(description ? { description } : {}) });

export const Email = () =>
  t.String({ maxLength: 254, pattern: '^[^\\s@\\u0000-\\u001F\\u007F]+@[^\\s@\\u0000-\\u001F\\u007F]+\\.[^\\s@\\u0000-\\u001F\\u007F]+$', description: 'E-mail address' });

export const Uuid = t.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'UUID',
});

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

/** Error responses documented for a route, by status. */
export const problems = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ProblemSchema])) as Record<number, typeof ProblemSchema>;

export const DataList = <T extends TSchema>(item: T) => t.Object({ data: t.Array(item) });

export const PageQuery = {
  page: t.Optional(t.Integer({ minimum: 1, default: 1 })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
};

export const Paginated = <T extends TSchema>(item: T) =>
  t.Object({
    data: t.Array(item),
    pagination: t.Object({ page: t.Integer(), limit: t.Integer(), total: t.Integer(), totalPages: t.Integer() }),
  });
