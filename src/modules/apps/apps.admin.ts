import { recentActivity } from '../analytics/analytics.service.ts';
import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import { idParam, listQuery, oneOf } from '../console/console-lists.ts';
import { appActionsPanel, appList, appPage, appRow, supportEditForm, type AppButtons, type SupportEditField } from '../../../views/admin/apps.ts';
import type { Capabilities } from '../admin-accounts/capabilities.ts';
import type { ConsoleKit, ConsoleRequest, Outcome } from '../console/console-plugin.ts';
import { field, type FormFields } from '../console/console-forms.ts';
import { decideApp, setFeatured } from './app-admin.service.ts';
import { appDossier, appSummary, listApps, type AppDossier, type AppSummary } from './app-directory.ts';
import { APP_STATUSES, CATEGORIES } from './app.entity.ts';
import { REVISABLE_STATUSES } from './app-state.ts';
import { LISTING_LABELS } from './listing-fields.ts';
import { SUPPORT_EDITABLE_FIELDS, supportEditApp } from './support-edits.service.ts';

/** Console: every app, one app's page, featuring, suspension and support edits. */

function buttonsFor(app: { status: string; actions: AppSummary['actions']; pendingRevision: boolean }, can: Capabilities): AppButtons {
  return {
    feature: app.actions.feature && can['apps.feature'],
    unfeature: app.actions.unfeature && can['apps.feature'],
    suspend: app.actions.lifecycle.includes('suspend') && can['apps.suspend'],
    relist: app.actions.lifecycle.includes('relist') && can['apps.suspend'],
    review: app.status === 'PENDING' ? 'app' : app.pendingRevision ? 'revision' : null,
  };
}

const summaryButtons = (app: AppSummary, can: Capabilities) => buttonsFor({ ...app, pendingRevision: app.hasPendingRevision }, can);
const dossierButtons = (dossier: AppDossier, can: Capabilities) =>
  buttonsFor({ status: dossier.app.status, actions: dossier.actions, pendingRevision: dossier.revision !== null }, can);

const LIMITS: Record<(typeof SUPPORT_EDITABLE_FIELDS)[number], number> = {
  name: 80,
  description: 280,
  longDescription: 20_000,
  logoUrl: 2048,
  bannerUrl: 2048,
  websiteUrl: 2048,
  supportUrl: 2048,
  privacyPolicyUrl: 2048,
  termsOfServiceUrl: 2048,
};

/** The form's fields, filled with the listing (or, after a refused edit, with what support typed). */
function editFields(dossier: AppDossier, typed: FormFields | null): SupportEditField[] {
  return SUPPORT_EDITABLE_FIELDS.map((name) => ({
    name,
    label: LISTING_LABELS[name],
    value: typed ? (field(typed, name) ?? '') : ((dossier.app[name] as string | null) ?? ''),
    multiline: name === 'longDescription',
    type: name.endsWith('Url') ? ('url' as const) : ('text' as const),
    required: name === 'name' || name === 'description',
    maxLength: LIMITS[name],
  }));
}

/** Form values as a PUT-shaped change set: text as typed (line endings normalised), an empty URL or long text clears it. */
function changesFrom(form: FormFields): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  for (const name of SUPPORT_EDITABLE_FIELDS) {
    const raw = field(form, name);
    if (raw === undefined) continue;
    const value = name === 'longDescription' ? raw.replace(/\r\n?/g, '\n') : raw.trim();
    changes[name] = value === '' && name !== 'name' && name !== 'description' ? null : value;
  }
  return changes;
}

/** How many days of installs, uninstalls and active installs the app page charts. */
const ACTIVITY_DAYS = 90;

export function appsAdmin(_ctx: AppContext, kit: ConsoleKit) {
  async function renderAppPage(c: ConsoleRequest, outcome?: Outcome<unknown>, editOutcome?: Outcome<unknown>) {
    const dossier = await appDossier(c.em.fork(), idParam(c.params.id, 'App'));
    const activity = await recentActivity(c.em.fork(), dossier.app.id, ACTIVITY_DAYS);
    const editable = c.can['apps.support-edit'] && REVISABLE_STATUSES.includes(dossier.app.status);
    const refused = editOutcome && !editOutcome.ok;
    return {
      dossier,
      markup: appPage({
        dossier,
        activity,
        buttons: dossierButtons(dossier, c.can),
        form: c.forms,
        message: outcome?.message,
        supportEdit: editable
          ? supportEditForm({
              appId: dossier.app.id,
              version: dossier.app.version,
              fields: editFields(dossier, refused ? c.form : null),
              form: c.forms,
              message: editOutcome?.message ?? null,
              note: refused ? field(c.form, 'note') : undefined,
            })
          : null,
      }),
    };
  }

  /** Feature, unfeature, suspend, relist: the row (list) or the actions panel (app page) is redrawn. */
  const appAction = (verb: string, run: (c: ConsoleRequest, id: string) => Promise<{ name: string }>, confirm?: string) =>
    kit.action({
      confirm: confirm ? () => confirm : undefined,
      run: (c) => run(c, idParam(c.params.id, 'App')),
      success: (_c, app) => `"${app.name}" is ${verb}.`,
      async fragment(c, outcome) {
        const id = idParam(c.params.id, 'App');
        if (c.form.view === 'panel') {
          const { dossier } = await renderAppPage(c);
          return appActionsPanel(dossier.app, dossierButtons(dossier, c.can), c.forms, outcome.message);
        }
        const app = await appSummary(c.em.fork(), id);
        return appRow(app, summaryButtons(app, c.can), c.forms, outcome.message);
      },
      redirect: (c) => `/admin/apps/${idParam(c.params.id, 'App')}`,
    });

  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/apps',
      kit.page(async (c) => {
        const query = listQuery(c.query);
        const status = oneOf(c.query.status, APP_STATUSES);
        const category = oneOf(c.query.category, CATEGORIES);
        const list = await listApps(c.em, { ...query, status, category });
        return {
          title: 'Apps',
          body: appList({
            rows: list.data.map((app) => ({ app, buttons: summaryButtons(app, c.can) })),
            query: { q: query.q ?? undefined, status: status ?? undefined, category: category ?? undefined },
            paging: { page: query.page, totalPages: list.totalPages, total: list.total },
            statuses: APP_STATUSES,
            categories: CATEGORIES,
            form: c.forms,
          }),
        };
      }),
      { capability: 'view' },
    )
    .get(
      '/admin/apps/:id',
      kit.page(async (c) => {
        const { dossier, markup } = await renderAppPage(c);
        return { title: dossier.app.name, back: { href: '/admin/apps', label: 'Apps' }, body: markup };
      }),
      { capability: 'view' },
    )
    .post(
      '/admin/apps/:id/feature',
      appAction('featured', (c, id) => setFeatured(c.deps, id, true, c.actor)),
      { capability: 'apps.feature' },
    )
    .post(
      '/admin/apps/:id/unfeature',
      appAction('no longer featured', (c, id) => setFeatured(c.deps, id, false, c.actor)),
      { capability: 'apps.feature' },
    )
    .post(
      '/admin/apps/:id/suspend',
      appAction(
        'suspended',
        (c, id) => decideApp(c.deps, id, 'suspend', { actor: c.actor }),
        'Suspend this app? It leaves the public catalogue at once.',
      ),
      { capability: 'apps.suspend' },
    )
    .post(
      '/admin/apps/:id/relist',
      appAction(
        'relisted',
        (c, id) => decideApp(c.deps, id, 'relist', { actor: c.actor }),
        'Relist this app? It returns to the public catalogue at once.',
      ),
      { capability: 'apps.suspend' },
    )
    .post(
      '/admin/apps/:id/edit',
      kit.action({
        async run(c) {
          const version = Number(field(c.form, 'version'));
          return supportEditApp(
            c.deps,
            idParam(c.params.id, 'App'),
            { changes: changesFrom(c.form), version: Number.isInteger(version) ? version : -1, note: field(c.form, 'note') },
            c.actor,
          );
        },
        success: (_c, result) =>
          `Saved: ${result.changedFields.map((name) => LISTING_LABELS[name as keyof typeof LISTING_LABELS] ?? name).join(', ')}. The developer will be e-mailed the changes.`,
        fragment: async (c, outcome) => (await renderAppPage(c, outcome.ok ? outcome : undefined, outcome.ok ? undefined : outcome)).markup,
        redirect: (c) => `/admin/apps/${idParam(c.params.id, 'App')}`,
      }),
      { capability: 'apps.support-edit' },
    );
}
