// The Debian mirror apt already uses, for debootstrap: the first source of the `bookworm` suite in
// /etc/apt/sources.list or /etc/apt/sources.list.d (one-line `.list` or deb822 `.sources` files).
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export const DEBIAN_SUITE = 'bookworm';
const APT_DIR = '/etc/apt';

function mirrorsInOneLineFormat(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([type, , suite]) => type === 'deb' && suite === DEBIAN_SUITE)
    .map(([, uri]) => uri as string);
}

function mirrorsInDeb822Format(text: string): string[] {
  return text.split(/\n\s*\n/).flatMap((stanza) => {
    const field = (name: string): string[] => new RegExp(`^${name}:\\s*(.*)$`, 'mi').exec(stanza)?.[1]?.trim().split(/\s+/) ?? [];
    return field('Types').includes('deb') && field('Suites').includes(DEBIAN_SUITE) ? field('URIs') : [];
  });
}

export async function debianMirror(): Promise<string> {
  const listDir = join(APT_DIR, 'sources.list.d');
  const files = [join(APT_DIR, 'sources.list'), ...(await readdir(listDir).catch(() => [])).sort().map((name) => join(listDir, name))];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    const mirrors = file.endsWith('.sources') ? mirrorsInDeb822Format(text) : file.endsWith('.list') ? mirrorsInOneLineFormat(text) : [];
    if (mirrors[0]) return mirrors[0];
  }
  throw new Error(`no apt source of Debian ${DEBIAN_SUITE} in ${APT_DIR}/sources.list or ${listDir}`);
}
