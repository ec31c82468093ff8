import { type ComparisonHistogram, formatCount, formatMetres } from './comparison-api.js';

/** The chart's drawing box, in SVG units (it scales to its column's width). */
const WIDTH = 640;
const HEIGHT = 260;
const MARGIN = { top: 12, right: 16, bottom: 40, left: 56 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;

/** The viewer's C2C ramp (docs/comparisons-viewer.md): green to the tolerance, then yellow to red at maxDistance. */
const GREEN = [0x1a, 0x98, 0x50];
const YELLOW = [0xfe, 0xe0, 0x8b];
const RED = [0xd7, 0x30, 0x27];

function mix(a: number[], b: number[], t: number): string {
  const channel = (index: number) => Math.round((a[index] as number) + ((b[index] as number) - (a[index] as number)) * t);
  return `rgb(${channel(0)}, ${channel(1)}, ${channel(2)})`;
}

/** A bin's colour by its middle, as the heat map colours a point at that distance. */
export function rampColour(distance: number, tolerance: number, maxDistance: number): string {
  const d = Math.abs(distance);
  if (d <= tolerance) return mix(GREEN, YELLOW, 0);
  const half = maxDistance / 2;
  if (d <= half) return mix(GREEN, YELLOW, (d - tolerance) / Math.max(half - tolerance, Number.EPSILON));
  return mix(YELLOW, RED, Math.min(1, (d - half) / Math.max(maxDistance - half, Number.EPSILON)));
}

/**
 * The distances' histogram as a bar chart: one bar per bin, its height in proportion to the
 * bin's count (linear, the tallest bar the plot's height), coloured as the heat map colours its
 * distances, with the tolerance marked. Each bar's title says its range and count.
 */
export function DistanceHistogram(props: { histogram: ComparisonHistogram; tolerance: number; maxDistance: number }) {
  const { bins } = props.histogram;
  if (bins.length === 0) return <p>No point lies within the maximum distance: there is no histogram.</p>;
  const from = bins[0]?.from ?? 0;
  const to = bins[bins.length - 1]?.to ?? from;
  const span = to - from || 1;
  const most = Math.max(...bins.map((bin) => bin.count), 1);
  const barWidth = PLOT_WIDTH / bins.length;
  const x = (distance: number) => MARGIN.left + ((distance - from) / span) * PLOT_WIDTH;
  const baseline = MARGIN.top + PLOT_HEIGHT;
  const ticks = [from, from + span / 2, to];
  const toleranceShown = props.tolerance > from && props.tolerance < to;
  return (
    <svg
      class="histogram"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={`Histogram of the distances: ${bins.length} bins from ${formatMetres(from)} to ${formatMetres(to)}, the fullest holding ${formatCount(most)} points`}
    >
      <g class="histogram-bars">
        {bins.map((bin) => {
          const height = (bin.count / most) * PLOT_HEIGHT;
          return (
            <rect
              key={bin.from}
              x={x(bin.from) + 0.5}
              y={baseline - height}
              width={Math.max(barWidth - 1, 0.5)}
              height={height}
              fill={rampColour((bin.from + bin.to) / 2, props.tolerance, props.maxDistance)}
              data-count={bin.count}
            >
              <title>{`${formatMetres(bin.from)} to ${formatMetres(bin.to)}: ${formatCount(bin.count)} points`}</title>
            </rect>
          );
        })}
      </g>
      {toleranceShown && (
        <g class="histogram-tolerance">
          <line x1={x(props.tolerance)} x2={x(props.tolerance)} y1={MARGIN.top} y2={baseline} />
          <text x={x(props.tolerance) + 4} y={MARGIN.top + 12}>
            tolerance
          </text>
        </g>
      )}
      <g class="histogram-axis">
        <line x1={MARGIN.left} x2={MARGIN.left + PLOT_WIDTH} y1={baseline} y2={baseline} />
        <line x1={MARGIN.left} x2={MARGIN.left} y1={MARGIN.top} y2={baseline} />
        {ticks.map((tick, index) => (
          <text
            key={tick}
            x={x(tick)}
            y={baseline + 16}
            text-anchor={index === 0 ? 'start' : index === ticks.length - 1 ? 'end' : 'middle'}
          >
            {formatMetres(tick)}
          </text>
        ))}
        <text x={MARGIN.left + PLOT_WIDTH / 2} y={HEIGHT - 6} text-anchor="middle">
          distance
        </text>
        <text x={MARGIN.left - 6} y={MARGIN.top + 10} text-anchor="end">
          {formatCount(most)}
        </text>
        <text x={MARGIN.left - 6} y={baseline} text-anchor="end">
          0
        </text>
        <text
          x={14}
          y={MARGIN.top + PLOT_HEIGHT / 2}
          text-anchor="middle"
          transform={`rotate(-90 14 ${MARGIN.top + PLOT_HEIGHT / 2})`}
        >
          points
        </text>
      </g>
    </svg>
  );
}
