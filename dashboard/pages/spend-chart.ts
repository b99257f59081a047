import { niceCeiling, type DaySpend } from '../daily-spend.ts';
import { html, type View } from '../html.ts';
import { formatCredits } from './format.ts';

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 56;
const BOTTOM = 28;
const TOP = 12;

/** Credits spent per day as a server-rendered SVG bar chart: no script, no library, readable without CSS. */
export function SpendChart({ days }: { days: readonly DaySpend[] }): View {
  const max = niceCeiling(Math.max(0, ...days.map((day) => day.credits)));
  const plotHeight = HEIGHT - BOTTOM - TOP;
  const slot = (WIDTH - LEFT) / days.length;
  const total = days.reduce((sum, day) => sum + day.credits, 0);
  const ticks = [0, max / 2, max];
  return html`<svg class="chart" id="spend-chart" viewBox=${`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label=${`Credits spent per day: ${formatCredits(total)} over ${days.length} days`}>
    ${ticks.map((tick) => {
      const y = TOP + plotHeight - (tick / max) * plotHeight;
      return html`<g>
        <line class="axis" x1=${LEFT} x2=${WIDTH} y1=${y} y2=${y} />
        <text x=${LEFT - 6} y=${y + 4} text-anchor="end">${formatCredits(tick)}</text>
      </g>`;
    })}
    ${days.map((day, index) => {
      const height = (day.credits / max) * plotHeight;
      const x = LEFT + index * slot;
      return html`<g>
        <rect class="bar" x=${x + slot * 0.15} y=${TOP + plotHeight - height} width=${slot * 0.7} height=${height} data-day=${day.day} data-credits=${day.credits}>
          <title>${day.day}: ${formatCredits(day.credits)} credits</title>
        </rect>
        ${index === days.length - 1
          ? html`<text x=${WIDTH} y=${HEIGHT - 8} text-anchor="end">${day.day.slice(5)}</text>`
          : index % 5 === 0 && index < days.length - 3
            ? html`<text x=${x + slot / 2} y=${HEIGHT - 8} text-anchor="middle">${day.day.slice(5)}</text>`
            : null}
      </g>`;
    })}
  </svg>`;
}
