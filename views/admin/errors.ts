import { html, type SafeHtml } from '../html.ts';
import { hiddenFields } from './components.ts';

/** Pages that say why nothing happened, and the confirmation step of destructive actions without JavaScript. */
export const errorPage = (text: string, link?: { href: string; label: string }): SafeHtml =>
  html`<p class="notice notice-error" role="alert">${text}</p>${link ? html`<p><a class="button primary" href="${link.href}">${link.label}</a></p>` : ''}`;

export const confirmationPage = (question: string, action: string, fields: Record<string, string>, back: string): SafeHtml =>
  html`<form class="panel" method="post" action="${action}">
    <p>${question}</p>
    ${hiddenFields(fields)}
    <button type="submit" class="danger">Yes, go ahead</button>
    <a class="button" href="${back}">Cancel</a>
  </form>`;
