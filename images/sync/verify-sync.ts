// `EXTENSIONS_SYNC_HASH=... node images/sync/verify-sync.ts <sync manifest>`: the front-end image
// builds' check (the Containerfile's stage and the offline builder). Exits 1 with one line saying
// what is wrong when the hash is missing or stale.
import { readSyncManifest, syncProblem } from './sync-manifest.ts';

const [file] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: EXTENSIONS_SYNC_HASH=sha256:... node images/sync/verify-sync.ts <extensions-sync.json>');
  process.exit(2);
}
const manifest = await readSyncManifest(file);
const problem = syncProblem(manifest, process.env.EXTENSIONS_SYNC_HASH);
if (problem !== undefined) {
  console.error(`extension sync check failed: ${problem}`);
  process.exit(1);
}
console.log(`extension sync matches ${manifest.platformImage}: ${manifest.setHash}`);
