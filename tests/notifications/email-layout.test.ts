import { expect, test } from 'bun:test';
import { compileLayout, compiledLayoutSource, mjmlHtml } from '../../views/emails/compile.ts';
import { renderEmail, type EmailContent } from '../../views/emails/layout.ts';

const CONTENTS: Record<string, EmailContent> = {
  'a plain message': { subject: 'Your developer account is verified', recipientName: 'Ada', paragraphs: ['You can now submit apps.'] },
  'a rejection with a reason over lines and guidance': {
    subject: 'Tasks+ was not approved',
    recipientName: 'Grace Hopper',
    paragraphs: ['A reviewer looked at Tasks+.', 'They wrote:'],
    reason: 'The logo is blurry.\r\nThe privacy policy is missing.\nPlease fix both.',
    guidance: ['Edit the listing, then submit it again.', 'Questions? Reply to this e-mail.'],
  },
  'values that are markup, entities, replacement patterns and slots': {
    subject: `<script>alert("x")</script> & 'co' $& $1 %%SUBJECT%%`,
    recipientName: '</mj-text><mj-include path="/etc/passwd" /> $` %%TEXT%%',
    paragraphs: ["<b>bold</b> &amp; $' %%REASON%%", ''],
    reason: '<img src=x onerror=alert(1)> %%FOOTER%%',
    guidance: [],
    footer: 'You receive this because you administer the marketplace. <a href="x">no link</a>',
  },
  'no paragraphs at all': { subject: 'Ünïcödé — 日本語 ✓', recipientName: 'Zoë', paragraphs: [] },
};

for (const [name, content] of Object.entries(CONTENTS)) {
  test(`mail put together from the compiled layout is what MJML renders: ${name}`, async () => {
    const rendered = renderEmail(content);
    expect(rendered.html).toBe(await mjmlHtml(content));
    expect(rendered.subject).toBe(content.subject);
  });
}

test('the committed compiled layout is what the MJML layout compiles to now (bun run emails:compile)', async () => {
  const committed = await Bun.file(new URL('../../views/emails/compiled-layout.ts', import.meta.url)).text();
  expect(committed).toBe(compiledLayoutSource(await compileLayout()));
});

test('processes that send mail do not load MJML', async () => {
  const check = Bun.spawnSync([
    process.execPath,
    '-e',
    `const { renderEmail } = await import(${JSON.stringify(new URL('../../views/emails/layout.ts', import.meta.url).pathname)});
     renderEmail({ subject: 's', recipientName: 'n', paragraphs: ['p'] });
     console.log(Object.keys(require.cache).some((path) => path.includes('/node_modules/mjml')));`,
  ]);
  expect(check.stdout.toString().trim()).toBe('false');
});
