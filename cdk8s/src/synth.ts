/**
 * `npm run --silent synth -- <shop.yaml>`: prints every object of the Shop as multi-document YAML,
 * the migration Job first. A file that cannot be read or is not a valid Shop is one line on stderr
 * and exit code 1.
 */
import { stringify } from 'yaml';
import { ShopNameError } from './names.ts';
import { manifestList, renderShop } from './render-shop.ts';
import { readShopFile, ShopFileError } from './shop-file.ts';

const USAGE = 'usage: npm run --silent synth -- <shop.yaml>';

async function main(args: readonly string[]): Promise<number> {
  const [file, ...extra] = args;
  if (file === undefined || extra.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    return 64;
  }
  try {
    const manifests = renderShop(await readShopFile(file));
    process.stdout.write(
      manifestList(manifests)
        .map((object) => `---\n${stringify(object)}`)
        .join(''),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof ShopFileError || error instanceof ShopNameError)) throw error;
    const message = error instanceof ShopNameError ? `${file}: not a valid Shop: ${error.message}` : error.message;
    process.stderr.write(`synth: ${message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
