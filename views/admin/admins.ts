import { html, type SafeHtml } from '../html.ts';
import { actionButton, badge, dataTable, hiddenFields, notice, type FormContext, type Message } from './components.ts';
import { formatTime } from './format.ts';

export interface AdminSummary {
  id: string;
  email: string;
  role: string;
  totpEnrolled: boolean;
  disabled: boolean;
  createdAt: Date;
}

// Owners manage admins: create one, change a role, reset a lost second factor, disable or enable one.

export function adminRow(admin: AdminSummary, roles: readonly string[], form: FormContext, self: boolean, message: Message = null): SafeHtml {
  const url = `/admin/admins/${admin.id}/role`;
  return html`<tr id="admin-${admin.id}">
    <td>${admin.email}${self ? html` <span class="muted">(you)</span>` : ''}${admin.disabled ? html` ${badge('DISABLED')}` : ''}</td>
    <td>
      <form class="inline" method="post" action="${url}" hx-post="${url}" hx-target="closest tr" hx-swap="outerHTML">
        ${hiddenFields({ _csrf: form.csrf, returnTo: form.returnTo })}
        <select name="role" aria-label="Role of ${admin.email}">${roles.map((role) => html`<option value="${role}"${role === admin.role ? html` selected` : ''}>${role}</option>`)}</select>
        <button type="submit">Change role</button>
      </form>
    </td>
    <td>${badge(admin.totpEnrolled ? 'ON' : 'OFF')}</td>
    <td>${formatTime(admin.createdAt)}</td>
    <td class="actions">${
      admin.totpEnrolled
        ? actionButton({
            url: `/admin/admins/${admin.id}/reset-totp`,
            label: 'Reset two-factor',
            form,
            target: 'closest tr',
            variant: 'danger',
            confirm: `Reset the second factor of ${admin.email}? Their sessions end now; you get a one-time code they need to enrol again.`,
          })
        : ''
    }${
      self
        ? ''
        : admin.disabled
          ? actionButton({ url: `/admin/admins/${admin.id}/enable`, label: 'Enable', form, target: 'closest tr' })
          : actionButton({
              url: `/admin/admins/${admin.id}/disable`,
              label: 'Disable',
              form,
              target: 'closest tr',
              variant: 'danger',
              confirm: `Disable ${admin.email}? Their sessions end now and they cannot sign in until an owner enables them.`,
            })
    }${notice(message)}</td>
  </tr>`;
}

export function adminsPage(data: {
  admins: AdminSummary[];
  roles: readonly string[];
  form: FormContext;
  selfId: string;
  message?: Message;
  typed?: { email?: string; role?: string };
}): SafeHtml {
  return html`<div id="admins-page">
    ${dataTable({
      id: 'admins',
      columns: [{ label: 'E-mail' }, { label: 'Role' }, { label: 'Two-factor' }, { label: 'Created' }, { label: 'Actions' }],
      rows: data.admins.map((admin) => adminRow(admin, data.roles, data.form, admin.id === data.selfId)),
      empty: 'No admins.',
    })}
    <section class="panel" id="new-admin">
      <h2>New admin</h2>
      ${notice(data.message ?? null)}
      <form method="post" action="/admin/admins" hx-post="/admin/admins" hx-target="#admins-page" hx-swap="outerHTML">
        ${hiddenFields({ _csrf: data.form.csrf, returnTo: data.form.returnTo })}
        <label for="new-email">Email</label>
        <input id="new-email" name="email" type="email" required maxlength="254" value="${data.typed?.email ?? ''}">
        <label for="new-password">Initial password (at least 12 characters; tell them to change it)</label>
        <input id="new-password" name="password" type="password" required minlength="12" maxlength="1024" autocomplete="new-password">
        <label for="new-role">Role</label>
        <select id="new-role" name="role">${data.roles.map((role) => html`<option value="${role}"${role === (data.typed?.role ?? 'reviewer') ? html` selected` : ''}>${role}</option>`)}</select>
        <button type="submit" class="primary">Create admin</button>
      </form>
    </section>
  </div>`;
}
