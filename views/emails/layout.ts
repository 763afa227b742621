import { escapeHtml } from '../escape.ts';

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

const text = (value: string) => `<mj-text>${escapeHtml(value)}</mj-text>`;

function toMjml(content: EmailContent): string {
  const blocks = [
    `<mj-text font-size="20px" font-weight="bold">${escapeHtml(content.subject)}</mj-text>`,
    text(`Hello ${content.recipientName},`),
    ...content.paragraphs.map(text),
    ...(content.reason === undefined
      ? []
      : [`<mj-text padding-left="36px" color="#374151" font-style="italic">${escapeHtml(content.reason).replace(/\r?\n/g, '<br />')}</mj-text>`]),
    ...(content.guidance ?? []).map(text),
    text('— The App Marketplace team'),
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
  return [
    `Hello ${content.recipientName},`,
    ...content.paragraphs,
    ...reason,
    ...(content.guidance ?? []),
    '— The App Marketplace team',
    content.footer ?? FOOTER,
  ].join('\n\n');
}

/**
 * MJML and its dependencies take ~70 MB: loaded on the first e-mail rendered, so processes that
 * never render one (API processes) do not carry them.
 */
let mjml: Promise<typeof import('mjml')> | undefined;
const loadMjml = () => (mjml ??= import('mjml').then((module) => module.default as typeof import('mjml')));

/** MJML → HTML (strict: a template error fails loudly, never sends a broken mail) plus the text version. */
export async function renderEmail(content: EmailContent): Promise<RenderedEmail> {
  const mjml2html = await loadMjml();
  const { html } = await mjml2html(toMjml(content), { validationLevel: 'strict', ignoreIncludes: true, keepComments: false });
  return { subject: content.subject, html, text: toText(content) };
}
