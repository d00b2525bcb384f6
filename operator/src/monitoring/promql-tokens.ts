/**
 * A PromQL lexer just precise enough to tell vector selectors and grouping label lists apart from
 * everything else (functions, keywords, strings, durations), so an expression can be scoped to one
 * Shop without a full parser.
 */
export type TokenKind = 'identifier' | 'string' | 'number' | 'open' | 'close' | 'space' | 'other';

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
}

const PATTERNS: ReadonlyArray<readonly [TokenKind, RegExp]> = [
  ['space', /^(\s+|#[^\n]*)/],
  ['string', /^("(\\.|[^"\\])*"|'(\\.|[^'\\])*'|`[^`]*`)/],
  // Numbers and durations: 0.01, 1e3, 0x1f, 5m, 1h30m.
  ['number', /^[0-9.][0-9a-zA-Z_.]*/],
  ['identifier', /^[a-zA-Z_:][a-zA-Z0-9_:]*/],
  ['open', /^[({[]/],
  ['close', /^[)}\]]/],
  ['other', /^./],
];

export function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let rest = expression;
  while (rest.length > 0) {
    const [kind, match] =
      PATTERNS.map(([candidate, pattern]) => [candidate, pattern.exec(rest)] as const).find(([, found]) => found !== null) ?? [];
    if (kind === undefined || !match) throw new Error(`cannot read PromQL at: ${rest.slice(0, 20)}`);
    tokens.push({ kind, text: match[0] });
    rest = rest.slice(match[0].length);
  }
  return tokens;
}

/** The index of the next token that is not white space or a comment, from `index` on. */
export function nextSignificant(tokens: readonly Token[], index: number): number {
  let next = index;
  while (tokens[next]?.kind === 'space') next += 1;
  return next;
}

/** The index of the token that closes the bracket opened at `open`. */
export function closingIndex(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let index = open; index < tokens.length; index += 1) {
    const token = tokens[index];
    if (token?.kind === 'open') depth += 1;
    if (token?.kind === 'close') depth -= 1;
    if (depth === 0) return index;
  }
  throw new Error(`unbalanced ${tokens[open]?.text} in PromQL`);
}
