import { html, type SafeHtml } from '../html.ts';
import { dataTable, filterForm, hiddenFields, notice, pager, type FormContext, type Paging, type Message } from './components.ts';
import { formatTime } from './format.ts';

/** Registered OAuth clients as support looks them up: by client id, name or the developer's name or e-mail. */
export interface OAuthClientListing {
  clientId: string;
  name: string;
  developer: { id: string; name: string; email: string };
  appCount: number;
  createdAt: Date;
}

// Registered OAuth clients, and support's form to register one to a developer.

export function registerClientForm(
  form: FormContext,
  message: Message,
  typed: { developer?: string; clientId?: string; name?: string } = {},
): SafeHtml {
  return html`<section class="panel" id="register-client">
    <h2>Register a client</h2>
    <p class="muted">The developer's apps may then name it in <code>oauthClientId</code>; no one else's can.</p>
    ${notice(message)}
    <form method="post" action="/admin/oauth-clients" hx-post="/admin/oauth-clients" hx-target="#oauth-clients-page" hx-swap="outerHTML">
      ${hiddenFields({ _csrf: form.csrf, returnTo: form.returnTo })}
      <label for="client-developer">Developer (e-mail or id)</label>
      <input id="client-developer" name="developer" required maxlength="254" value="${typed.developer ?? ''}">
      <label for="client-id">Client id</label>
      <input id="client-id" name="clientId" required maxlength="200" value="${typed.clientId ?? ''}">
      <label for="client-name">Client name</label>
      <input id="client-name" name="name" required maxlength="80" value="${typed.name ?? ''}">
      <button type="submit" class="primary">Register client</button>
    </form>
  </section>`;
}

export function oauthClientsPage(data: { rows: OAuthClientListing[]; query: { q?: string }; paging: Paging; register: SafeHtml | null }): SafeHtml {
  return html`<div id="oauth-clients-page">
    ${data.register ?? ''}
    ${filterForm({ action: '/admin/oauth-clients', search: data.query.q, placeholder: 'Client id, name or developer' })}
    <div id="results">
      ${dataTable({
        id: 'oauth-clients',
        columns: [
          { label: 'Client id' },
          { label: 'Name' },
          { label: 'Developer' },
          { label: 'Apps using it', kind: 'num' },
          { label: 'Registered' },
        ],
        rows: data.rows.map(
          (c) => html`<tr><td><code>${c.clientId}</code></td><td>${c.name}</td>
            <td><a href="/admin/developers/${c.developer.id}">${c.developer.name}</a> <div class="muted">${c.developer.email}</div></td>
            <td class="num">${c.appCount}</td><td>${formatTime(c.createdAt)}</td></tr>`,
        ),
        empty: 'No client matches.',
      })}
      ${pager('/admin/oauth-clients', data.query, data.paging)}
    </div>
  </div>`;
}
