import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/**
 * `longDescription` is Markdown written by developers and shown to everyone, so it is rendered
 * once per write (never per read) and the HTML is sanitised as a second line of defence:
 * markdown-it already escapes raw HTML (`html: false`) and refuses `javascript:` links;
 * sanitize-html then keeps only the tags and attributes below.
 *
 * Images are not rendered: a Markdown image becomes its alt text. A listing's images are its
 * logo, banner and screenshots, which are checked; images inside the text would be fetched
 * from every visitor's browser unchecked (tracking pixels, mixed content, arbitrary sizes).
 */
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });
markdown.renderer.rules.image = (tokens, index) => markdown.utils.escapeHtml(tokens[index]?.content ?? '');

const LINK_REL = 'nofollow noopener noreferrer';

const sanitizeOptions: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'strong',
    'em',
    's',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel'], ol: ['start'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: { a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: LINK_REL } }) },
};

/** Sanitised HTML for a Markdown text; null for no text. */
export function renderLongDescription(source: string | null | undefined): string | null {
  if (source === null || source === undefined || source.trim() === '') return null;
  return sanitizeHtml(markdown.render(source), sanitizeOptions);
}
