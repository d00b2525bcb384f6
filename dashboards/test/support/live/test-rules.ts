// The committed rules file (alerts/shop.rules.yaml) with every non-zero `for` shortened, so that a test
// sees an alert go pending and then firing within seconds instead of minutes. Expressions, labels and
// annotations are the committed ones.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { RULES_FILE } from '../../../../alerts/src/generate-rules.ts';

interface RulesFile {
  groups: Array<{ name: string; rules: Array<{ alert: string; for?: string }> }>;
}

/** Writes `shop.rules.test.yaml` into `dir` with each non-zero `for` set to `shortFor`; returns its path. */
export async function writeShortenedRules(dir: string, shortFor: string): Promise<string> {
  const rules = parse(await readFile(RULES_FILE, 'utf8')) as RulesFile;
  for (const rule of rules.groups.flatMap((group) => group.rules)) {
    if (rule.for !== undefined && rule.for !== '0m') rule.for = shortFor;
  }
  const path = join(dir, 'shop.rules.test.yaml');
  await writeFile(path, stringify(rules, { lineWidth: 0 }));
  return path;
}
