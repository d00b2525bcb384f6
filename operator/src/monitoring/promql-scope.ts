import { closingIndex, nextSignificant, tokenize, type Token } from './promql-tokens.ts';

/** Keywords followed by a list of label names, e.g. `sum by (namespace, shop)`. */
const LABEL_LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
/** Words that are never a metric name where they stand (aggregations are followed by `by` or `(`). */
const KEYWORDS = new Set([
  ...LABEL_LIST_KEYWORDS,
  ...['bool', 'and', 'or', 'unless', 'offset', 'atan2', 'inf', 'nan'],
  ...[
    'sum',
    'min',
    'max',
    'avg',
    'group',
    'stddev',
    'stdvar',
    'count',
    'count_values',
    'bottomk',
    'topk',
    'quantile',
    'limitk',
    'limit_ratio',
  ],
]);

/**
 * The expression with `matchers` added to every vector selector, so it selects only those series:
 * `rate(x[5m])` becomes `rate(x{namespace="a", shop="b"}[5m])`. Label names in `by (...)` and the
 * like, function names, strings and durations are left as they are.
 */
export function scopeSelectors(expression: string, matchers: Readonly<Record<string, string>>): string {
  const added = Object.entries(matchers)
    .map(([label, value]) => `${label}=${JSON.stringify(value)}`)
    .join(', ');
  const tokens = tokenize(expression);
  let scoped = '';
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] as Token;
    const next = tokens[nextSignificant(tokens, index + 1)];
    if (token.text === '{') {
      const end = closingIndex(tokens, index);
      const inner = text(tokens, index + 1, end);
      scoped += `{${added}${inner.trim() === '' ? '' : `, ${inner.trim()}`}}`;
      index = end;
    } else if (token.text === '[' || (LABEL_LIST_KEYWORDS.has(token.text) && next?.text === '(')) {
      const end = closingIndex(tokens, token.text === '[' ? index : nextSignificant(tokens, index + 1));
      scoped += text(tokens, index, end + 1);
      index = end;
    } else if (isBareMetricName(token, next)) {
      scoped += `${token.text}{${added}}`;
    } else {
      scoped += token.text;
    }
  }
  return scoped;
}

/**
 * Whether some aggregation of the expression leaves `label` out of its result (`by` lists without it,
 * `without` lists with it): its alerts then speak for no one value of that label.
 */
export function dropsLabel(expression: string, label: string): boolean {
  const tokens = tokenize(expression);
  return tokens.some((token, index) => {
    if (token.text !== 'by' && token.text !== 'without') return false;
    const open = nextSignificant(tokens, index + 1);
    if (tokens[open]?.text !== '(') return false;
    const names = tokens
      .slice(open + 1, closingIndex(tokens, open))
      .filter((name) => name.kind === 'identifier')
      .map((name) => name.text);
    return token.text === 'by' ? !names.includes(label) : names.includes(label);
  });
}

/** A metric name not followed by its own `{...}` (those are scoped at the brace). */
function isBareMetricName(token: Token, next: Token | undefined): boolean {
  return token.kind === 'identifier' && !KEYWORDS.has(token.text) && next?.text !== '(' && next?.text !== '{';
}

function text(tokens: readonly Token[], from: number, to: number): string {
  return tokens
    .slice(from, to)
    .map((token) => token.text)
    .join('');
}
