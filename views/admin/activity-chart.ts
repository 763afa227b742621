import { html, type SafeHtml } from '../html.ts';
import { formatCount, plural } from './format.ts';

/**
 * Installs (bars above the axis) and uninstalls (below it) per day, and optionally active installs
 * at the end of each day (a line on its own scale), as inline SVG: no script, no chart library.
 * Numbers and dates only go into the markup through the escaping template.
 */
export interface ActivityDay {
  date: string;
  installs: number;
  uninstalls: number;
  activeInstalls?: number;
}

const CHART = { width: 600, height: 180, top: 14, bottom: 22 };

export function activityChart(days: ActivityDay[], period: string): SafeHtml {
  const up = Math.max(0, ...days.map((d) => d.installs));
  const down = Math.max(0, ...days.map((d) => d.uninstalls));
  const plot = CHART.height - CHART.top - CHART.bottom;
  const scale = plot / Math.max(1, up + down);
  const axis = CHART.top + Math.round(up * scale);
  const slot = CHART.width / Math.max(1, days.length);
  const installs = days.reduce((sum, d) => sum + d.installs, 0);
  const uninstalls = days.reduce((sum, d) => sum + d.uninstalls, 0);
  const withActive = days.length > 0 && days.every((d) => d.activeInstalls !== undefined);
  const maxActive = Math.max(1, ...days.map((d) => d.activeInstalls ?? 0));
  const activeY = (value: number) => (CHART.top + plot - (value / maxActive) * plot).toFixed(1);
  const points = withActive ? days.map((d, i) => `${((i + 0.5) * slot).toFixed(1)},${activeY(d.activeInstalls!)}`).join(' ') : '';
  const last = days.at(-1);
  const summary =
    `${plural(installs, 'install')} and ${plural(uninstalls, 'uninstall')} ${period}` +
    (withActive && last ? `; ${formatCount(last.activeInstalls!)} active at the end` : '');
  return html`<figure class="chart activity-chart">
    <svg viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-label="Installs and uninstalls per day ${period}: ${summary}" xmlns="http://www.w3.org/2000/svg">
      ${days.map((d, i) => {
        const x = (i * slot + 1).toFixed(1);
        const width = Math.max(1, slot - 2).toFixed(1);
        const upHeight = Math.round(d.installs * scale);
        const downHeight = Math.round(d.uninstalls * scale);
        const active = d.activeInstalls === undefined ? '' : `, ${formatCount(d.activeInstalls)} active`;
        return html`<g class="day"><title>${d.date}: ${plural(d.installs, 'install')}, ${plural(d.uninstalls, 'uninstall')}${active}</title><rect class="bar" x="${x}" y="${axis - upHeight}" width="${width}" height="${upHeight}"></rect><rect class="bar down" x="${x}" y="${axis}" width="${width}" height="${downHeight}"></rect></g>`;
      })}
      <line class="axis" x1="0" y1="${axis}" x2="${CHART.width}" y2="${axis}"></line>
      ${withActive ? html`<polyline class="line" points="${points}"></polyline>` : ''}
      <text class="label" x="0" y="${CHART.height - 6}">${days[0]?.date ?? ''}</text>
      <text class="label end" x="${CHART.width}" y="${CHART.height - 6}">${last?.date ?? ''}</text>
      <text class="label" x="0" y="${CHART.top - 3}">max ${formatCount(up)} installs / ${formatCount(down)} uninstalls a day${withActive ? html`; line: active installs (max ${formatCount(maxActive)})` : ''}</text>
    </svg>
    <figcaption><span class="key key-installs">installs</span> <span class="key key-uninstalls">uninstalls</span>${withActive ? html` <span class="key key-active">active installs</span>` : ''} — ${summary}</figcaption>
  </figure>`;
}
