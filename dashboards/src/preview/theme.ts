// Grafana's dark theme, as far as a preview draws it: page, panel and text colours, the classic palette
// for series, and the named colours thresholds use.
export const THEME = {
  page: '#111217',
  panel: '#181b1f',
  border: '#2c3235',
  text: '#ccccdc',
  weakText: '#8e8e8e',
  gridLine: 'rgba(204, 204, 220, 0.1)',
  font: 'Inter, Helvetica, Arial, sans-serif',
} as const;

export const SERIES_PALETTE = [
  '#7EB26D',
  '#EAB839',
  '#6ED0E0',
  '#EF843C',
  '#E24D42',
  '#1F78C1',
  '#BA43A9',
  '#705DA0',
  '#508642',
  '#CCA300',
];

const NAMED_COLORS: Readonly<Record<string, string>> = {
  green: '#73BF69',
  red: '#F2495C',
  yellow: '#FADE2A',
  orange: '#FF9830',
  blue: '#5794F2',
  purple: '#B877D9',
};

/** A threshold's colour as Grafana paints it: a name it knows, or the CSS colour as written. */
export function thresholdColor(color: string): string {
  return NAMED_COLORS[color] ?? color;
}
