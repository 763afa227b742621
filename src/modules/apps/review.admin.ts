import { Elysia } from 'elysia';
import type { EntityManager } from '@mikro-orm/postgresql';
import { idParam, listQuery, oneOf, type ListQuery } from '../../http/console-lists.ts';
import { validationFailed } from '../../http/problem.ts';
import { html } from '../../../views/html.ts';
import { notice } from '../../../views/admin/components.ts';
import { claimPanel, queuePage, reviewPage, type QueueItem } from '../../../views/admin/review.ts';
import type { ConsoleKit, ConsoleRequest, Outcome } from '../admins/console-kit.ts';
import { field, fieldList } from '../../http/console-forms.ts';
import { decideApp } from './app-admin.service.ts';
import { appDossier, type AppDossier } from './app-directory.ts';
import { claim, claimsOn, claimSubject, releaseClaim, type Claim } from './review-claims.ts';
import { reviewQueuePage } from './review-queue.ts';
import { waitingFor } from './review-targets.ts';
import { CANNED_REASONS, composeRejectionReason } from './rejection-reasons.ts';
import { decideRevision } from './revisions.service.ts';
import { reviewTeamOf } from '../teams/team-directory.ts';

/**
 * Console: the review queue and the review page of a PENDING app or of an app's pending revision.
 * Decisions go through the same services as the CLI, with the version the reviewer saw: if the
 * listing (or revision) changed meanwhile the decision is refused and the page shows the new one.
 */
type Kind = 'app' | 'revision';
const hide = { detail: { hide: true } };

async function queuePageData(em: EntityManager, adminId: string, filter: ListQuery & { kind: Kind | null }) {
  const page = await reviewQueuePage(em, filter);
  const claims = await claimsOn(em, page.data.map((e) => claimSubject(e.kind, e.id)));
  const items: QueueItem[] = page.data.map((entry) => {
    const held = claims.get(claimSubject(entry.kind, entry.id));
    return {
      kind: entry.kind,
      appId: entry.appId,
      name: entry.name,
      slug: entry.slug,
      developer: entry.developer,
      waiting: waitingFor('review', entry.waitingSince),
      position: entry.position,
      resubmission: entry.resubmission,
      claim: held ? { ...held, mine: held.adminId === adminId } : null,
    };
  });
  return { items, total: page.total, totalPages: page.totalPages };
}

/** What is under review on this page: the app itself, or its pending revision; null when nothing waits. */
function subjectOf(kind: Kind, dossier: AppDossier): { subject: string; version: number } | null {
  if (kind === 'app') return dossier.app.status === 'PENDING' ? { subject: claimSubject('app', dossier.app.id), version: dossier.app.version } : null;
  return dossier.revision ? { subject: claimSubject('revision', dossier.revision.id), version: dossier.revision.version } : null;
}

const mineOr = (held: Claim, adminId: string) => ({ ...held, mine: held.adminId === adminId });

function versionOf(c: ConsoleRequest): number {
  const raw = field(c.form, 'version') ?? '';
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw validationFailed('The decision does not say which version it is about', [{ path: 'version', message: 'required' }]);
  return Number(raw);
}

export function reviewAdmin(kit: ConsoleKit) {
  async function renderReview(c: ConsoleRequest, kind: Kind, options: { claimIt: boolean; outcome?: Outcome<unknown> }) {
    const appId = idParam(c.params.id, 'App');
    const dossier = await appDossier(c.em.fork(), appId);
    const under = subjectOf(kind, dossier);
    const held = under && options.claimIt ? await claim(c.em, under.subject, c.session.admin.id) : under ? (await claimsOn(c.em, [under.subject])).get(under.subject) : undefined;
    const outcome = options.outcome;
    const closed = under
      ? null
      : outcome?.ok
        ? `${outcome.message.text} Nothing is left to decide here.`
        : kind === 'app'
          ? `This app is ${dossier.app.status}: there is nothing to decide.`
          : 'This app has no pending revision: there is nothing to decide.';
    return {
      dossier,
      markup: reviewPage({
        kind,
        dossier,
        claim: held ? mineOr(held, c.session.admin.id) : null,
        closed,
        message: !under && outcome && !outcome.ok ? outcome.message : null,
        form: c.forms,
        team: await reviewTeamOf(c.em.fork(), appId),
        decision: under
          ? {
              kind,
              appId,
              version: under.version,
              reasons: CANNED_REASONS,
              form: c.forms,
              canDecide: c.can['apps.decide'],
              message: outcome && !outcome.ok ? outcome.message : null,
              draft: outcome && !outcome.ok ? { reasons: fieldList(c.form, 'reasons'), text: field(c.form, 'reason') ?? '' } : undefined,
            }
          : null,
      }),
    };
  }

  const page = (kind: Kind) =>
    kit.page('view', async (c) => {
      const { dossier, markup } = await renderReview(c, kind, { claimIt: true });
      return {
        title: `${kind === 'app' ? 'Review' : 'Review revision'}: ${dossier.app.name}`,
        back: { href: '/admin/review', label: 'Review queue' },
        body: markup,
      };
    });

  const decide = (kind: Kind, decision: 'approve' | 'reject') =>
    kit.action('apps.decide', {
      async run(c) {
        const appId = idParam(c.params.id, 'App');
        const version = versionOf(c);
        const reason = decision === 'reject' ? composeRejectionReason(fieldList(c.form, 'reasons'), field(c.form, 'reason')) : undefined;
        const options = { actor: c.actor, version, reason };
        const app = kind === 'app' ? await decideApp(c.deps, appId, decision, options) : await decideRevision(c.deps, appId, decision, options);
        if (kind === 'app') await releaseClaim(c.em, claimSubject('app', appId));
        return app;
      },
      success: (_c, app) =>
        `${kind === 'app' ? `"${app.name}"` : `The revision of "${app.name}"`} is ${decision === 'approve' ? 'approved' : 'rejected'}.`,
      fragment: async (c, outcome) => (await renderReview(c, kind, { claimIt: false, outcome })).markup,
      redirect: (c) => `/admin/review/${kind === 'app' ? 'apps' : 'revisions'}/${idParam(c.params.id, 'App')}`,
    });

  const claimFragment = (kind: Kind, takeOver: boolean) => async (c: ConsoleRequest) => {
    const dossier = await appDossier(c.em.fork(), idParam(c.params.id, 'App'));
    const under = subjectOf(kind, dossier);
    if (!under) return html`<div id="claim"></div>`;
    const held = await claim(c.em, under.subject, c.session.admin.id, { takeOver });
    return claimPanel(kind, dossier.app.id, mineOr(held, c.session.admin.id), c.forms);
  };

  const routesFor = (kind: Kind) => {
    const base = `/admin/review/${kind === 'app' ? 'apps' : 'revisions'}/:id`;
    return new Elysia()
      .get(base, page(kind), hide)
      .post(`${base}/approve`, decide(kind, 'approve'), hide)
      .post(`${base}/reject`, decide(kind, 'reject'), hide)
      .get(`${base}/claim`, kit.fragment('view', claimFragment(kind, false)), hide)
      .post(
        `${base}/claim/take-over`,
        kit.action('apps.decide', {
          run: claimFragment(kind, true),
          success: () => 'You are reviewing this now.',
          fragment: async (_c, outcome) => outcome.result ?? html`<div id="claim">${notice(outcome.message)}</div>`,
          redirect: (c) => `/admin/review/${kind === 'app' ? 'apps' : 'revisions'}/${idParam(c.params.id, 'App')}`,
        }),
        hide,
      );
  };

  return new Elysia()
    .get(
      '/admin/review',
      kit.page('view', async (c) => {
        const query = listQuery(c.query);
        const kind = oneOf(c.query.kind, ['app', 'revision'] as const);
        const { items, total, totalPages } = await queuePageData(c.em, c.session.admin.id, { ...query, kind });
        return {
          title: 'Review queue',
          body: queuePage({ items, query: { q: query.q ?? undefined, kind: kind ?? undefined }, paging: { page: query.page, total, totalPages } }),
        };
      }),
      hide,
    )
    .use(routesFor('app'))
    .use(routesFor('revision'));
}
