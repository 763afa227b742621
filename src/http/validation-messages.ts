import { Kind, type TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import type { FieldError } from './problem.ts';

/**
 * Validation errors in words a caller can act on: the field or parameter by name, and what is
 * allowed ("one of PRODUCTIVITY, …", "a whole number from 1 to 100", "an absolute http(s) URL")
 * instead of a schema kind or a raw regular expression. Schemas built in `schemas.ts` say what
 * they accept in `x-expected`; everything else is described from its JSON Schema keywords.
 */
export const EXPECTED = 'x-expected';

/**
 * A query parameter's name, carried by its schema: Elysia converts numeric query parameters in a
 * transform whose error loses the parameter's path, so the name travels with the schema instead.
 */
export const PARAMETER = 'x-parameter';

/** `/screenshots/0/url` → `screenshots[0].url`. */
export function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}

const quoteList = (values: unknown[]) => values.map((value) => String(value)).join(', ');

function range(schema: TSchema, unit = ''): string {
  const { minimum: min, maximum: max } = schema;
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}${unit}`;
  if (min !== undefined) return ` of at least ${min}${unit}`;
  if (max !== undefined) return ` of at most ${max}${unit}`;
  return '';
}

function lengthRange(schema: TSchema): string {
  const { minLength: min, maxLength: max } = schema;
  if (min !== undefined && max !== undefined) return min === max ? ` of ${max} characters` : ` of ${min} to ${max} characters`;
  if (max !== undefined) return ` of at most ${max} characters`;
  if (min !== undefined) return ` of at least ${min} characters`;
  return '';
}

// Elysia turns query numbers and booleans into a union of a formatted string and the real type;
// the real branch describes both.
const COERCED_STRING_FORMATS = ['integer', 'numeric', 'boolean'];

/** What a schema accepts, as a noun phrase. */
export function expectation(schema: TSchema): string {
  if (typeof schema[EXPECTED] === 'string') return schema[EXPECTED];
  if (Array.isArray(schema.enum)) return `one of ${quoteList(schema.enum)}`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.anyOf)) {
    const branches = (schema.anyOf as TSchema[]).filter((branch) => !(branch.type === 'string' && COERCED_STRING_FORMATS.includes(branch.format)));
    const phrases = [...new Set(branches.map(expectation))];
    return phrases.join(' or ');
  }
  switch (schema.type) {
    case 'integer':
      return `a whole number${range(schema)}`;
    case 'number':
      return `a number${range(schema)}`;
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'string':
      return schema.format === 'date-time' ? 'an ISO-8601 date and time' : `text${lengthRange(schema)}`;
    case 'array':
      return schema.maxItems !== undefined ? `a list of at most ${schema.maxItems} items` : 'a list';
    case 'object':
      return schema[Kind] === 'Record' ? 'a JSON object' : 'a JSON object with the documented fields';
    default:
      return 'a valid value';
  }
}

/**
 * A value that failed a union (`X or null`) but has the shape of one branch gets that branch's
 * errors, so a nested field is named (`dataHandling.locations[1]`) instead of the whole union.
 */
function withinUnion(error: ValueError): ValueError[] {
  if (error.type !== ValueErrorType.Union) return [error];
  for (const branch of error.errors ?? []) {
    const nested = [...branch];
    if (nested.length > 0 && nested.every((inner) => inner.path.startsWith(`${error.path}/`))) return nested.flatMap(withinUnion);
  }
  return [error];
}

/** One message per field, the first problem found for it. */
export function describeValidationErrors(errors: ValueError[], where: string): FieldError[] {
  const byPath = new Map<string, string>();
  for (const error of errors.flatMap(withinUnion)) {
    const path = fieldPath(error.path) || (error.schema[PARAMETER] as string | undefined) || where;
    if (byPath.has(path)) continue;
    if (error.type === ValueErrorType.ObjectRequiredProperty) byPath.set(path, 'is required');
    else if (error.type === ValueErrorType.ObjectAdditionalProperties) byPath.set(path, 'is not a known field');
    else byPath.set(path, `must be ${expectation(error.schema)}`);
  }
  return [...byPath].slice(0, 20).map(([path, message]) => ({ path, message }));
}
