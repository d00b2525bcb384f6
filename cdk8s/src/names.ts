import { sha256Hex } from './hash.ts';

/** Longest DNS-1123 label: Service names, label values and a Job's pod label `job-name` must fit. */
const MAX_LABEL_LENGTH = 63;
const HASH_LENGTH = 8;
const COMPONENT_SUFFIXES = ['-api', '-worker', '-consumer', '-config'];
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export class ShopNameError extends Error {}

/** Throws unless every name derived from `shopName` (`<shop>-consumer` the longest) is a valid DNS label. */
export function checkShopName(shopName: string | undefined): string {
  if (shopName === undefined || shopName === '') throw new ShopNameError('metadata.name: the Shop has no name');
  const longest = Math.max(...COMPONENT_SUFFIXES.map((suffix) => suffix.length));
  if (!DNS_LABEL.test(shopName) || shopName.length + longest > MAX_LABEL_LENGTH) {
    throw new ShopNameError(
      `metadata.name: "${shopName}" must be lowercase letters, digits and '-', start and end with a letter or digit, ` +
        `and be at most ${MAX_LABEL_LENGTH - longest} characters so that "${shopName}-consumer" stays a DNS label`,
    );
  }
  return shopName;
}

export const shopObjectNames = (shopName: string) => ({
  api: `${shopName}-api`,
  worker: `${shopName}-worker`,
  consumer: `${shopName}-consumer`,
  config: `${shopName}-config`,
});

/**
 * `<shop>-migrate-<tag>`, one Job per version. A tag that is not already DNS-safe (`1.4.0` has dots)
 * or that makes the name too long is lowercased, its other characters become '-', the name is cut to
 * fit and a hash of the original shop and tag is appended, so `1.4.0`, `1-4-0` and `1_4_0` get
 * distinct Jobs.
 */
export function migrationJobName(shopName: string, tag: string): string {
  const name = `${shopName}-migrate-${tag}`;
  if (DNS_LABEL.test(name) && name.length <= MAX_LABEL_LENGTH) return name;
  const safe = name.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return withHash(safe, `${shopName}/${tag}`, /[^a-z0-9]+$/);
}

/** The tag as the `app.kubernetes.io/version` label value: as is when valid, else cut with a hash. */
export function versionLabel(tag: string): string {
  if (LABEL_VALUE.test(tag) && tag.length <= MAX_LABEL_LENGTH) return tag;
  return withHash(tag.replace(/^[^A-Za-z0-9]+/, ''), tag, /[^A-Za-z0-9]+$/);
}

function withHash(text: string, original: string, trailingJunk: RegExp): string {
  const kept = text.slice(0, MAX_LABEL_LENGTH - HASH_LENGTH - 1).replace(trailingJunk, '');
  const hash = sha256Hex(original, HASH_LENGTH);
  return kept === '' ? hash : `${kept}-${hash}`;
}
