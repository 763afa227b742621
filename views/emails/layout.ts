import { escapeHtml } from '../escape.ts';
import { COMPILED_LAYOUT } from './compiled-layout.ts';

/** A message as templates describe it: plain text only, escaped here for the HTML version. */
export interface EmailContent {
  subject: string;
  recipientName: string;
  paragraphs: string[];
  /** The reviewer's words, quoted as written (line breaks kept). */
  reason?: string;
  /** What to do next, after the reason. */
  guidance?: string[];
  /** Why the recipient gets this mail; developers' by default. */
  footer?: string;
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

const FOOTER = 'You receive this e-mail because you have a developer account on the App Marketplace.';
export const CLOSING = '— The App Marketplace team';

const text = (value: string) => `<mj-text>${escapeHtml(value)}</mj-text>`;
/** The reviewer's words as HTML: escaped, their line breaks kept. */
const quoted = (reason: string) => escapeHtml(reason).replace(/\r?\n/g, '<br />');

/** The layout in MJML, the one source of its HTML (`compile.ts` compiles it). */
export function toMjml(content: EmailContent): string {
  const blocks = [
    `<mj-text font-size="20px" font-weight="bold">${escapeHtml(content.subject)}</mj-text>`,
    text(`Hello ${content.recipientName},`),
    ...content.paragraphs.map(text),
    ...(content.reason === undefined ? [] : [`<mj-text padding-left="36px" color="#374151" font-style="italic">${quoted(content.reason)}</mj-text>`]),
    ...(content.guidance ?? []).map(text),
    text(CLOSING),
  ];
  return `<mjml>
  <mj-head>
    <mj-title>${escapeHtml(content.subject)}</mj-title>
    <mj-attributes>
      <mj-all font-family="Helvetica, Arial, sans-serif" />
      <mj-text font-size="15px" line-height="22px" color="#111827" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f3f4f6">
    <mj-section background-color="#ffffff" padding="24px 12px">
      <mj-column>${blocks.join('\n')}</mj-column>
    </mj-section>
    <mj-section>
      <mj-column><mj-text font-size="12px" color="#6b7280">${escapeHtml(content.footer ?? FOOTER)}</mj-text></mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
}

function toText(content: EmailContent): string {
  const reason = content.reason === undefined ? [] : [content.reason.replace(/^/gm, '> ')];
  return [`Hello ${content.recipientName},`, ...content.paragraphs, ...reason, ...(content.guidance ?? []), CLOSING, content.footer ?? FOOTER].join(
    '\n\n',
  );
}

/** Where a value goes in a compiled fragment: plain ASCII that escaping and MJML leave as they are. */
export const SLOT = { subject: '%%SUBJECT%%', text: '%%TEXT%%', reason: '%%REASON%%', footer: '%%FOOTER%%' } as const;

/** The layout's HTML in pieces, as `compile.ts` cuts it from MJML's rendering. */
export interface CompiledLayout {
  /** Everything before the first block; the subject goes in its slots (the title and the body's label). */
  head: string;
  /** The first block: the subject as a heading. */
  heading: string;
  /** A paragraph. */
  text: string;
  /** The reviewer's words, quoted. */
  reason: string;
  /** What MJML puts between two blocks. */
  between: string;
  /** Everything after the last block, with the footer's slot. */
  tail: string;
}

/** Fills a slot with HTML (split and joined: a replacement string would read `$&` in the value as a pattern). */
const fill = (fragment: string, slot: string, html: string) => fragment.split(slot).join(html);

/**
 * The HTML MJML renders for the layout, put together from its compiled fragments: MJML and its
 * dependencies (~50 MB of modules) stay out of the processes that send mail (D191).
 */
export function renderEmail(content: EmailContent): RenderedEmail {
  const layout: CompiledLayout = COMPILED_LAYOUT;
  const paragraph = (value: string) => fill(layout.text, SLOT.text, escapeHtml(value));
  const blocks = [
    fill(layout.heading, SLOT.subject, escapeHtml(content.subject)),
    paragraph(`Hello ${content.recipientName},`),
    ...content.paragraphs.map(paragraph),
    ...(content.reason === undefined ? [] : [fill(layout.reason, SLOT.reason, quoted(content.reason))]),
    ...(content.guidance ?? []).map(paragraph),
    paragraph(CLOSING),
  ];
  const html =
    fill(layout.head, SLOT.subject, escapeHtml(content.subject)) +
    blocks.join(layout.between) +
    fill(layout.tail, SLOT.footer, escapeHtml(content.footer ?? FOOTER));
  return { subject: content.subject, html, text: toText(content) };
}
