// The images' OCI labels: title, description, version (the root package.json's), revision (the
// commit built) and source (IMAGE_SOURCE, or the git remote `origin`; left out when neither exists).
import { VERSION, type ImageSpec } from '../contents.ts';
import { command } from './command.ts';
import { REPOSITORY_ROOT } from './layout.ts';

const PREFIX = 'org.opencontainers.image';

async function source(): Promise<string | undefined> {
  if (process.env.IMAGE_SOURCE) return process.env.IMAGE_SOURCE;
  const remote = await command('git', ['remote', 'get-url', 'origin'], { cwd: REPOSITORY_ROOT }).catch(() => '');
  return remote.trim() || undefined;
}

export async function imageLabels(image: ImageSpec): Promise<Record<string, string>> {
  const revision = (await command('git', ['rev-parse', 'HEAD'], { cwd: REPOSITORY_ROOT })).trim();
  const origin = await source();
  return {
    [`${PREFIX}.title`]: image.title,
    [`${PREFIX}.description`]: image.description,
    [`${PREFIX}.version`]: VERSION,
    [`${PREFIX}.revision`]: revision,
    ...(origin ? { [`${PREFIX}.source`]: origin } : {}),
  };
}
