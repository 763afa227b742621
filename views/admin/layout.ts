import { html, type Renderable, type SafeHtml } from '../html.ts';
import { notice } from './components.ts';

/** The console's page shell: head (stylesheet and htmx from this server only), navigation, flash, content. */
export interface ConsoleAssets {
  css: string;
  htmx: string;
  /** The keyboard shortcuts (`data-shortcut` attributes). */
  shortcuts: string;
}

export interface NavItem {
  href: string;
  label: string;
  active: boolean;
}

export interface SignedInAdmin {
  email: string;
  role: string;
  csrf: string;
}

export interface ShellData {
  title: string;
  assets: ConsoleAssets;
  admin?: SignedInAdmin;
  nav?: NavItem[];
  flash?: { kind: 'ok' | 'error'; text: string } | null;
  /** Shown above the title (breadcrumb-like). */
  back?: { href: string; label: string };
}

// htmx reads its configuration here, so no inline script is needed; its own indicator styles are in admin.css.
const HTMX_CONFIG = JSON.stringify({ includeIndicatorCSS: false, defaultSwap: 'outerHTML', history: true });

export function shell(data: ShellData, body: Renderable): SafeHtml {
  const admin = data.admin;
  return html`<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="htmx-config" content="${HTMX_CONFIG}">
  <title>${data.title} · Marketplace admin</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${data.assets.css}">
  <script src="${data.assets.htmx}" defer></script>
  <script src="${data.assets.shortcuts}" defer></script>
</head>
<body${admin ? html` hx-headers:inherited="${JSON.stringify({ 'X-CSRF-Token': admin.csrf })}"` : ''}>
  <header class="topbar">
    <a class="brand" href="/admin">Marketplace admin</a>
    ${data.nav ? html`<nav aria-label="Main"><ul>${data.nav.map((item) => html`<li><a href="${item.href}"${item.active ? html` aria-current="page"` : ''}>${item.label}</a></li>`)}</ul></nav>` : ''}
    ${
      admin
        ? html`<div class="account">
            <a href="/admin/account">${admin.email}</a> <span class="role">${admin.role}</span>
            <form class="inline" method="post" action="/admin/logout">
              <input type="hidden" name="_csrf" value="${admin.csrf}">
              <button type="submit" class="link">Sign out</button>
            </form>
          </div>`
        : ''
    }
  </header>
  <main id="main">
    ${data.back ? html`<p class="back"><a href="${data.back.href}">← ${data.back.label}</a></p>` : ''}
    ${notice(data.flash)}
    <h1>${data.title}</h1>
    ${body}
  </main>
</body>
</html>`;
}
