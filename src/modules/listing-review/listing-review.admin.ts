import { Elysia } from 'elysia';
import type { EntityManager } from '@mikro-orm/postgresql';
import { idParam, listQuery, oneOf } from '../console/console-lists.ts';
import { ApiError, validationFailed } from '../../http/problem.ts';
import { html } from '../../../views/html.ts';
import { notice } from '../../../views/admin/components.ts';
import { claimPanel, queuePage, reviewPage, reviewPath, type QueueItem, type QueueLinks } from '../../../views/admin/listing-review.ts';
import type { ConsoleKit, ConsoleRequest, Outcome } from '../console/console-plugin.ts';
import { field, fieldList } from '../console/console-forms.ts';
import { decideApp } from '../apps/app-admin.service.ts';
import { appDossier, type AppDossier } from '../apps/app-directory.ts';
import { claim, claimsOn, claimSubject, releaseClaim, releaseOwnClaim, renewOwnClaim, type Claim } from './review-claims.ts';
import { nextUnclaimed, QUEUE_FLAGS, queueNeighbours, reviewQueuePage, type QueueEntry, type QueueFilter } from './review-queue.ts';
import { waitingFor } from './review-targets.ts';
import { reviewWarnings } from './review-warnings.ts';
import { CANNED_REASONS, composeRejectionReason } from './rejection-reasons.ts';
import { decideRevision } from '../apps/revisions.service.ts';
import type { OwnerAppView } from '../apps/apps.model.ts';
import { reviewTeamOf } from '../teams/team-directory.ts';

/**
 * Console: the review queue and the review page of a PENDING app or of an app's pending revision.
 * Decisions go through the same services as the CLI, with the version the reviewer saw: if the
 * listing (or revision) changed meanwhile the decision is refused and the page shows the new one.
 * The queue's filter travels with the reviewer (the `queue` query string), so "& next", `n`, `j`
 * and `k` stay within it.
 */
type Kind = 'app' | 'revision';
const KINDS = ['app', 'revision'] as const;

function queueFilterOf(params: Record<string, string | undefined>): QueueFilter {
  return { ...listQuery(params), kind: oneOf(params.kind, KINDS), flag: oneOf(params.flag, QUEUE_FLAGS) };
}

/** The filter as the query string review pages carry (page number left out: "next" means the whole filtered queue). */
function queueQueryOf(filter: QueueFilter): string {
  const entries = Object.entries({ q: filter.q, kind: filter.kind, flag: filter.flag }).filter((e): e is [string, string] => Boolean(e[1]));
  return new URLSearchParams(entries).toString();
}

/** The filter a decision form carried back (unknown values are dropped, as in any console list). */
const postedFilter = (c: ConsoleRequest) => queueFilterOf(Object.fromEntries(new URLSearchParams(field(c.form, 'queue') ?? '')));

const entryPath = (entry: QueueEntry, queue: string) => `${reviewPath(entry.kind, entry.appId)}${queue ? `?${queue}` : ''}`;

async function queuePageData(em: EntityManager, adminId: string, filter: QueueFilter) {
  const page = await reviewQueuePage(em, filter);
  const claims = await claimsOn(
    em,
    page.data.map((e) => claimSubject(e.kind, e.id)),
  );
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
      flags: entry.flags,
      logoUrl: entry.logoUrl,
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
  if (!/^[1-9][0-9]{0,8}$/.test(raw))
    throw validationFailed('The decision does not say which version it is about', [{ path: 'version', message: 'required' }]);
  return Number(raw);
}

export function listingReviewAdmin(kit: ConsoleKit) {
  async function renderReview(c: ConsoleRequest, kind: Kind, filter: QueueFilter, outcome?: Outcome<unknown>) {
    const appId = idParam(c.params.id, 'App');
    const dossier = await appDossier(c.em.fork(), appId);
    const under = subjectOf(kind, dossier);
    const queue = queueQueryOf(filter);
    const [held, neighbours, next] = await Promise.all([
      under ? claimsOn(c.em, [under.subject]).then((claims) => claims.get(under.subject)) : undefined,
      under ? queueNeighbours(c.em, filter, under.subject) : { previous: null, next: null },
      nextUnclaimed(c.em, filter, under?.subject ?? null),
    ]);
    const links: QueueLinks = {
      queue: `/admin/review${queue ? `?${queue}` : ''}`,
      previous: neighbours.previous && entryPath(neighbours.previous, queue),
      next: neighbours.next && entryPath(neighbours.next, queue),
      nextUnclaimed: next && entryPath(next, queue),
    };
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
        claim: under ? (held ? mineOr(held, c.session.admin.id) : null) : undefined,
        closed,
        links,
        warnings: under ? reviewWarnings(kind, dossier) : [],
        message: !under && outcome && !outcome.ok ? outcome.message : null,
        form: c.forms,
        team: await reviewTeamOf(c.em.fork(), appId),
        decision: under
          ? {
              kind,
              appId,
              version: under.version,
              queue,
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
    kit.page(async (c) => {
      const filter = queueFilterOf(c.query);
      const { dossier, markup } = await renderReview(c, kind, filter);
      const queue = queueQueryOf(filter);
      return {
        title: `${kind === 'app' ? 'Review' : 'Review changes to'}: ${dossier.app.name}`,
        back: { href: `/admin/review${queue ? `?${queue}` : ''}`, label: 'Review queue' },
        body: markup,
      };
    });

  const decide = (kind: Kind, decision: 'approve' | 'reject') =>
    kit.action({
      async run(c): Promise<{ app: OwnerAppView; next: string | null }> {
        const appId = idParam(c.params.id, 'App');
        const version = versionOf(c);
        const reason = decision === 'reject' ? composeRejectionReason(fieldList(c.form, 'reasons'), field(c.form, 'reason')) : undefined;
        const dossier = await appDossier(c.em.fork(), appId);
        // The warnings as they stand now, not as the form claims: an approval past any needs the tick.
        const warnings = decision === 'approve' ? reviewWarnings(kind, dossier) : [];
        const under = subjectOf(kind, dossier);
        // A decision on a version that is no longer current is refused as stale by the service (409) instead.
        if (warnings.length > 0 && field(c.form, 'checked') !== 'yes' && under?.version === version) {
          throw new ApiError(
            400,
            'WARNINGS_NOT_CHECKED',
            `Not approved: this item has warnings (${warnings.map((w) => w.label).join(', ')}). Tick "I have checked the warnings" to approve it anyway.`,
          );
        }
        const options = { actor: c.actor, version, reason, checkedWarnings: warnings.map((w) => w.summary) };
        const app = kind === 'app' ? await decideApp(c.deps, appId, decision, options) : await decideRevision(c.deps, appId, decision, options);
        // A decided item needs no claim.
        if (under) await releaseClaim(c.em, under.subject);
        const filter = postedFilter(c);
        const next = field(c.form, 'then') === 'next' ? await nextUnclaimed(c.em, filter, null) : null;
        return {
          app,
          next: next ? entryPath(next, queueQueryOf(filter)) : field(c.form, 'then') === 'next' ? `/admin/review?${queueQueryOf(filter)}` : null,
        };
      },
      success: (c, { app, next }) =>
        `${kind === 'app' ? `"${app.name}"` : `The revision of "${app.name}"`} is ${decision === 'approve' ? 'approved' : 'rejected'}.${
          field(c.form, 'then') === 'next' && next?.startsWith('/admin/review?') ? ' Nothing else unclaimed waits in this filter.' : ''
        }`,
      fragment: async (c, outcome) => (await renderReview(c, kind, postedFilter(c), outcome)).markup,
      redirect: (c) => `/admin/review/${kind === 'app' ? 'apps' : 'revisions'}/${idParam(c.params.id, 'App')}`,
      follow: (_c, outcome) => outcome.result?.next ?? null,
    });

  /** The claim panel after `change` (a GET renews only the viewer's own claim). */
  const claimFragment = (kind: Kind, change: 'renew' | 'start' | 'take-over' | 'release') => async (c: ConsoleRequest) => {
    const dossier = await appDossier(c.em.fork(), idParam(c.params.id, 'App'));
    const under = subjectOf(kind, dossier);
    if (!under) return html`<div id="claim"></div>`;
    const adminId = c.session.admin.id;
    let held: Claim | undefined;
    if (change === 'renew') held = await renewOwnClaim(c.em, under.subject, adminId);
    else if (change === 'release') await releaseOwnClaim(c.em, under.subject, adminId);
    else held = await claim(c.em, under.subject, adminId, { takeOver: change === 'take-over' });
    if (change === 'release') held = (await claimsOn(c.em, [under.subject])).get(under.subject);
    return claimPanel(kind, dossier.app.id, held ? mineOr(held, adminId) : null, c.forms);
  };

  const claimAction = (kind: Kind, change: 'start' | 'take-over' | 'release', success: string) =>
    kit.action({
      run: claimFragment(kind, change),
      success: () => success,
      fragment: async (_c, outcome) => outcome.result ?? html`<div id="claim">${notice(outcome.message)}</div>`,
      redirect: (c) => `/admin/review/${kind === 'app' ? 'apps' : 'revisions'}/${idParam(c.params.id, 'App')}`,
    });

  const routesFor = (kind: Kind) => {
    const base = `/admin/review/${kind === 'app' ? 'apps' : 'revisions'}/:id`;
    return new Elysia()
      .use(kit.plugin)
      .get(base, page(kind), { capability: 'view' })
      .post(`${base}/approve`, decide(kind, 'approve'), { capability: 'apps.decide' })
      .post(`${base}/reject`, decide(kind, 'reject'), { capability: 'apps.decide' })
      .get(`${base}/claim`, kit.fragment(claimFragment(kind, 'renew')), { capability: 'view' })
      .post(`${base}/claim`, claimAction(kind, 'start', 'You are reviewing this now.'), { capability: 'apps.decide' })
      .post(`${base}/claim/take-over`, claimAction(kind, 'take-over', 'You are reviewing this now.'), { capability: 'apps.decide' })
      .post(`${base}/claim/release`, claimAction(kind, 'release', 'Released: others see that nobody is reviewing this.'), {
        capability: 'apps.decide',
      });
  };

  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/review',
      kit.page(async (c) => {
        const filter = queueFilterOf(c.query);
        const { items, total, totalPages } = await queuePageData(c.em, c.session.admin.id, filter);
        const queue = queueQueryOf(filter);
        return {
          title: 'Review queue',
          body: queuePage({
            items,
            queue,
            query: { q: filter.q ?? undefined, kind: filter.kind ?? undefined, flag: filter.flag ?? undefined },
            paging: { page: filter.page, total, totalPages },
          }),
        };
      }),
      { capability: 'view' },
    )
    .use(routesFor('app'))
    .use(routesFor('revision'));
}
