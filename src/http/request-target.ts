import type { FieldError } from './problem.ts';

/** The path and query of a request URL, as the client sent them, without building a URL object (this runs on every request). */
export const targetOf = (url: string) => url.slice(url.indexOf('/', url.indexOf('//') + 2));

/** The path of a request target (its path and query). */
export function pathOf(target: string): string {
  const end = target.indexOf('?');
  return end === -1 ? target : target.slice(0, end);
}

/**
 * Checks on the URL itself, before routing: every path segment and query parameter must decode
 * to UTF-8 text without control characters (PostgreSQL cannot store a NUL, and no parameter of
 * this API needs one), and no query parameter may be given twice (none of them is a list, and
 * silently taking the first or the last would hide the caller's mistake).
 */
const CONTROL = /[\u0000-\u001F\u007F]/;

function decoded(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

function textProblem(text: string | null): string | null {
  if (text === null) return 'is not valid percent-encoded UTF-8';
  if (CONTROL.test(text)) return 'contains control characters';
  return null;
}

export function requestTargetProblems(url: URL): { where: 'path' | 'query'; errors: FieldError[] } | null {
  for (const segment of url.pathname.split('/')) {
    const problem = textProblem(decoded(segment));
    if (problem) return { where: 'path', errors: [{ path: 'path', message: problem }] };
  }
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const pair of url.search.slice(1).split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const rawKey = separator === -1 ? pair : pair.slice(0, separator);
    const key = decoded(rawKey.replaceAll('+', ' '));
    const name = key ?? rawKey;
    const problem = textProblem(key) ?? (separator === -1 ? null : textProblem(decoded(pair.slice(separator + 1).replaceAll('+', ' '))));
    if (problem) errors.push({ path: name, message: problem });
    else if (seen.has(name)) errors.push({ path: name, message: 'is given more than once' });
    seen.add(name);
  }
  return errors.length > 0 ? { where: 'query', errors } : null;
}
