import { html, type SafeHtml } from '../html.ts';
import { formatCount } from './format.ts';
import { activityChart } from './activity-chart.ts';
import { waitingBadge, type Waiting } from './waiting.ts';

/**
 * The numbers on the console's front page: what waits for an admin (and the oldest of each
 * against its target), how many apps are live, and installs and uninstalls per day over the last 30 days.
 */
export interface Backlog {
  count: number;
  oldest: Waiting | null;
}

export interface DashboardFigures {
  developersAwaitingVerification: Backlog;
  appsAwaitingReview: Backlog;
  revisionsAwaitingReview: Backlog;
  approvedApps: number;
  /** Oldest day first, 30 entries, days without activity included (from the per-day roll-up of every app). */
  activityByDay: { date: string; installs: number; uninstalls: number }[];
}

/** The front page: backlogs against their targets, live apps, installs and uninstalls chart, queue health (polled). */
function backlogCard(title: string, backlog: Backlog, link: string, unit: string): SafeHtml {
  return html`<a class="card urgency-${backlog.oldest?.urgency ?? 'ok'}" href="${link}">
    <span class="card-title">${title}</span>
    <span class="card-figure">${formatCount(backlog.count)}</span>
    <span class="card-detail">${backlog.oldest ? html`oldest waiting ${waitingBadge(backlog.oldest)}` : `no ${unit} waiting`}</span>
  </a>`;
}

export function dashboardPage(figures: DashboardFigures, queueHealth: SafeHtml): SafeHtml {
  return html`<div class="cards">
    ${backlogCard('Developers awaiting verification', figures.developersAwaitingVerification, '/admin/developers?status=PENDING_VERIFICATION', 'developer')}
    ${backlogCard('Apps awaiting review', figures.appsAwaitingReview, '/admin/review', 'app')}
    ${backlogCard('Revisions awaiting review', figures.revisionsAwaitingReview, '/admin/review', 'revision')}
    <a class="card" href="/admin/apps?status=APPROVED"><span class="card-title">Approved apps</span><span class="card-figure">${formatCount(figures.approvedApps)}</span><span class="card-detail">live in the catalogue</span></a>
  </div>
  <div class="dashboard-panels">
    <section class="panel"><h2>Installs and uninstalls</h2>${activityChart(figures.activityByDay, 'in the last 30 days')}</section>
    ${queueHealth}
  </div>`;
}
