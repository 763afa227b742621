import { escapeHtml } from './escape.ts';

/**
 * The console's template mechanism: a tagged template that escapes every interpolated value
 * unless it is already `SafeHtml` (the output of another `html` template, or `trustedHtml` for
 * the few strings that are markup by construction). Values in URL attributes must also be
 * http(s), mailto or same-site paths, so a stored `javascript:` link renders inert; an
 * interpolation into an unquoted attribute is a template bug and throws.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Renderable = SafeHtml | string | number | boolean | null | undefined | readonly Renderable[];

/** Attributes whose value the browser follows or loads, and htmx's (which runs a `js:` or `javascript:` one as code). */
const URL_ATTRIBUTE = /\s(?:href|src|action|formaction|poster|hx-(?:get|post|put|patch|delete|action))=["']$/i;
const UNQUOTED_ATTRIBUTE = /\s[a-z:-]+=$/i;
const SAFE_URL = /^(?:https?:\/\/|mailto:|\/(?!\/)|\?|#)/i;

/** Same-site paths, queries and fragments, http(s) and mailto; anything else becomes `#`. */
export function safeUrl(url: string): string {
  return SAFE_URL.test(url.trim()) ? url : '#';
}

function render(value: Renderable): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === null || value === undefined || value === false || value === true) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Renderable[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    if (UNQUOTED_ATTRIBUTE.test(out)) throw new Error(`unquoted attribute value in a template, before: ${strings[index + 1]?.slice(0, 40)}`);
    out += URL_ATTRIBUTE.test(out) && !(value instanceof SafeHtml) ? escapeHtml(safeUrl(String(value ?? ''))) : render(value);
    out += strings[index + 1] ?? '';
  });
  return new SafeHtml(out);
}

/**
 * Markup that is safe by construction and must not be escaped: the sanitised HTML rendered from
 * a listing's Markdown, and SVG this service generates itself. Never pass request data here.
 */
export const trustedHtml = (markup: string): SafeHtml => new SafeHtml(markup);

/** Joins fragments (lists of rows, options). */
export const join = (parts: readonly Renderable[], separator: Renderable = ''): SafeHtml => new SafeHtml(parts.map(render).join(render(separator)));
