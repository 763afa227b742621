import { html, type SafeHtml } from '../html.ts';
import type { Backlog, DashboardFigures } from '../../src/modules/dashboard/dashboard.service.ts';
import { formatCount, plural } from './format.ts';
import { waitingBadge } from './waiting.ts';

/** The front page: backlogs against their targets, live apps, installs chart, queue health (polled). */
function backlogCard(title: string, backlog: Backlog, link: string, unit: string): SafeHtml {
  return html`<a class="card urgency-${backlog.oldest?.urgency ?? 'ok'}" href="${link}">
    <span class="card-title">${title}</span>
    <span class="card-figure">${formatCount(backlog.count)}</span>
    <span class="card-detail">${backlog.oldest ? html`oldest waiting ${waitingBadge(backlog.oldest)}` : `no ${unit} waiting`}</span>
  </a>`;
}

const CHART = { width: 600, height: 160, top: 12, bottom: 22 };

/** Installs per day as bars; numbers only go into the markup, through the escaping template. */
export function installsChart(days: { day: string; installs: number }[]): SafeHtml {
  const max = Math.max(1, ...days.map((d) => d.installs));
  const plot = CHART.height - CHART.top - CHART.bottom;
  const slot = CHART.width / Math.max(1, days.length);
  const total = days.reduce((sum, d) => sum + d.installs, 0);
  return html`<figure class="chart">
    <svg viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-label="Installs per day over the last 30 days: ${total} in all, at most ${max} in a day" xmlns="http://www.w3.org/2000/svg">
      <line class="axis" x1="0" y1="${CHART.height - CHART.bottom}" x2="${CHART.width}" y2="${CHART.height - CHART.bottom}"></line>
      ${days.map((d, i) => {
        const height = Math.round((d.installs / max) * plot);
        return html`<rect class="bar" x="${(i * slot + 2).toFixed(1)}" y="${CHART.height - CHART.bottom - height}" width="${(slot - 4).toFixed(1)}" height="${height}"><title>${d.day}: ${plural(d.installs, 'install')}</title></rect>`;
      })}
      <text class="label" x="0" y="${CHART.height - 6}">${days[0]?.day ?? ''}</text>
      <text class="label end" x="${CHART.width}" y="${CHART.height - 6}">${days.at(-1)?.day ?? ''}</text>
      <text class="label" x="0" y="${CHART.top - 2}">max ${formatCount(max)} / day</text>
    </svg>
    <figcaption>${plural(total, 'install')} in the last 30 days</figcaption>
  </figure>`;
}

export function dashboardPage(figures: DashboardFigures, queueHealth: SafeHtml): SafeHtml {
  return html`<div class="cards">
    ${backlogCard('Developers awaiting verification', figures.developersAwaitingVerification, '/admin/developers?status=PENDING_VERIFICATION', 'developer')}
    ${backlogCard('Apps awaiting review', figures.appsAwaitingReview, '/admin/review', 'app')}
    ${backlogCard('Revisions awaiting review', figures.revisionsAwaitingReview, '/admin/review', 'revision')}
    <a class="card" href="/admin/apps?status=APPROVED"><span class="card-title">Approved apps</span><span class="card-figure">${formatCount(figures.approvedApps)}</span><span class="card-detail">live in the catalogue</span></a>
  </div>
  <div class="dashboard-panels">
    <section class="panel"><h2>Installs</h2>${installsChart(figures.installsByDay)}</section>
    ${queueHealth}
  </div>`;
}
