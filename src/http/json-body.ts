import { unstorableText } from '../lib/storable-text.ts';
import { ApiError, validationFailed } from './problem.ts';

/**
 * The one body parser of every route. It refuses what is not JSON (415), then bounds the shape
 * on the raw text — nesting, array and object sizes — before `JSON.parse` or validation can
 * spend time or memory proportional to a hostile structure, and finally refuses text that
 * PostgreSQL cannot store, naming the field. No legitimate payload comes near the bounds.
 */
export const MAX_JSON_DEPTH = 8;
export const MAX_JSON_ITEMS = 100;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

const unsupportedMediaType = () =>
  new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON, sent with Content-Type: application/json');

/** The first bound the text breaks, in words, or null. Linear in the text; allocates one small array. */
export function jsonShapeProblem(text: string): string | null {
  const itemCounts: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* \ */) i += 1;
      else if (char === 0x22 /* " */) inString = false;
      continue;
    }
    if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      if (itemCounts.length === MAX_JSON_DEPTH) return `nests deeper than ${MAX_JSON_DEPTH} levels`;
      itemCounts.push(1);
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
      itemCounts.pop();
    } else if (char === 0x2c /* , */ && itemCounts.length > 0) {
      const count = itemCounts[itemCounts.length - 1]! + 1;
      if (count > MAX_JSON_ITEMS) return `holds a list or object of more than ${MAX_JSON_ITEMS} entries`;
      itemCounts[itemCounts.length - 1] = count;
    }
  }
  return null;
}

/** The path (`screenshots[0].caption`) and problem of the first string PostgreSQL could not store. */
function unstorableField(value: unknown, path: string): { path: string; message: string } | null {
  if (typeof value === 'string') {
    const problem = unstorableText(value);
    return problem ? { path: path || 'body', message: problem } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = unstorableField(value[i], `${path}[${i}]`);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = unstorableText(key);
      if (keyProblem) return { path: path || 'body', message: `has a field name that ${keyProblem}` };
      const found = unstorableField(item, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded$/i;

/** A form post as the console reads it: each field a string, or a list of strings when sent several times. */
function formFields(text: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  const params = new URLSearchParams(text);
  if ([...params.keys()].length > MAX_JSON_ITEMS * 2) throw validationFailed(`The form has more than ${MAX_JSON_ITEMS * 2} fields`);
  for (const [name, value] of params) {
    const existing = fields[name];
    fields[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return fields;
}

/**
 * Builds the one body parser. `formPrefixes` name the paths that also take HTML form posts (the
 * admin console); everywhere else a body that is not JSON is 415. An empty body reads as `{}`,
 * so a route whose fields are all optional may be called without one.
 */
export function createBodyParser(options: { formPrefixes: readonly string[] }) {
  return async function parseBody({ request, contentType }: { request: Request; contentType: string }): Promise<unknown> {
    let text: string;
    try {
      text = utf8.decode(await request.arrayBuffer());
    } catch {
      throw validationFailed('The request body is not valid UTF-8');
    }
    if (text.trim() === '') return {};
    const pathname = new URL(request.url).pathname;
    const takesForms = options.formPrefixes.some((prefix) => pathname.startsWith(prefix));
    let value: unknown;
    if (takesForms && FORM_CONTENT_TYPE.test(contentType)) {
      value = formFields(text);
    } else {
      if (!JSON_CONTENT_TYPE.test(contentType)) throw unsupportedMediaType();
      const shapeProblem = jsonShapeProblem(text);
      if (shapeProblem) throw validationFailed(`The request body ${shapeProblem}`, [{ path: 'body', message: shapeProblem }]);
      try {
        value = JSON.parse(text);
      } catch {
        throw validationFailed('The request body is not valid JSON');
      }
    }
    const unstorable = unstorableField(value, '');
    if (unstorable) throw validationFailed('The request body is invalid', [unstorable]);
    return value;
  };
}
