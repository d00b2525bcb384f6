/**
 * The metric names a PromQL expression (or a Grafana `label_values(...)` query) selects. Enough PromQL for
 * the expressions of this repository: string literals, label matchers, ranges and the label lists of
 * by/without/on/ignoring/group_* are dropped; of the identifiers left, those called as functions and the
 * operators are not metric names.
 */
const LABEL_LIST = /\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g;
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'Inf',
  'NaN',
]);

export function metricNames(expression: string): string[] {
  const skeleton = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\w+/g, ' ')
    .replace(LABEL_LIST, ' ');
  const names = new Set<string>();
  for (const match of skeleton.matchAll(/(?<![\w.])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (name !== undefined && call === undefined && !KEYWORDS.has(name)) names.add(name);
  }
  return [...names].sort();
}
