import { describe, expect, test } from 'bun:test';
import { html, join, trustedHtml } from '../../views/html.ts';
import { diffListings, lineDiff } from '../../src/modules/apps/listing-diff.ts';
import { composeRejectionReason } from '../../src/modules/listing-review/rejection-reasons.ts';

describe('the console template', () => {
  const hostile = `<img src=x onerror=alert(1)>"'&`;

  test('escapes every interpolated value, nested templates and lists included', () => {
    const rendered = html`<p title="${hostile}">${hostile}</p>${[html`<b>${hostile}</b>`, hostile]}`.value;
    expect(rendered).toBe(
      '<p title="&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;">&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;</p>' +
        '<b>&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;</b>&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;',
    );
    expect(html`${null}${undefined}${false}${true}${0}`.value).toBe('0');
    expect(join([hostile, html`<br>`], ', ').value).toBe('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;, <br>');
  });

  test('URL attributes take only http(s), mailto and same-site paths; anything else becomes #', () => {
    for (const url of ['javascript:alert(1)', ' JaVaScRiPt:alert(1)', 'data:text/html,<script>', 'vbscript:x', '//evil.example.com/x']) {
      expect(html`<a href="${url}">x</a>`.value).toBe('<a href="#">x</a>');
      expect(html`<img src="${url}">`.value).toBe('<img src="#">');
    }
    expect(html`<a href="${'https://example.com/?a=1&b=2'}">x</a>`.value).toBe('<a href="https://example.com/?a=1&amp;b=2">x</a>');
    expect(html`<form action="${'/admin/apps/1/edit'}"></form>`.value).toBe('<form action="/admin/apps/1/edit"></form>');
    // htmx would run these as code.
    expect(html`<button hx-post="${'js:alert(1)'}"></button>`.value).toBe('<button hx-post="#"></button>');
    expect(html`<div hx-get="${'javascript:alert(1)'}"></div>`.value).toBe('<div hx-get="#"></div>');
  });

  test('an interpolation into an unquoted attribute is a template bug and throws', () => {
    expect(() => html`<a href=${'x'}>`).toThrow(/unquoted attribute/);
  });

  test('only trustedHtml is inserted as markup', () => {
    expect(html`<div>${trustedHtml('<p>sanitised</p>')}</div>`.value).toBe('<div><p>sanitised</p></div>');
  });
});

describe('listing diffs', () => {
  test('field by field, in reading order, unchanged fields left out; screenshots as a list', () => {
    const before = { name: 'A', description: 'Old', screenshots: [{ url: 'https://x/1.png', caption: null, order: 0 }], websiteUrl: null };
    const after = {
      name: 'A',
      description: 'New',
      screenshots: [{ url: 'https://x/2.png', caption: 'Two', order: 0 }],
      websiteUrl: 'https://a.example.com',
    };
    expect(diffListings(before, after).map((c) => [c.field, c.before, c.after])).toEqual([
      ['description', 'Old', 'New'],
      ['screenshots', '1. https://x/1.png', '1. https://x/2.png — Two'],
      ['websiteUrl', null, 'https://a.example.com'],
    ]);
  });

  test('long texts get a line diff', () => {
    expect(lineDiff('one\ntwo\nthree', 'one\n2\nthree\nfour')).toEqual([
      { kind: 'same', text: 'one' },
      { kind: 'del', text: 'two' },
      { kind: 'add', text: '2' },
      { kind: 'same', text: 'three' },
      { kind: 'add', text: 'four' },
    ]);
    expect(lineDiff('x\n'.repeat(2000), 'y')).toBeNull();
  });
});

describe('rejection reasons', () => {
  test("picked reasons as a list, then the reviewer's own words; unknown ids and control characters are refused", () => {
    expect(composeRejectionReason(['links', 'screenshots'], '  See the support URL. ')).toBe(
      '- The screenshots do not show the app as it works.\n- A link (website, support, privacy policy or terms) is broken or leads somewhere unrelated.\nSee the support URL.',
    );
    expect(composeRejectionReason([], '')).toBe('');
    expect(() => composeRejectionReason(['nope'], '')).toThrow('Unknown rejection reason');
    expect(() => composeRejectionReason([], 'bell\u0007')).toThrow('control characters');
  });
});
