import { ConfigError, EnvReader } from '@shop/runtime';
import { VARIABLES, type VariableDoc } from '../config/variables.ts';
import type { DiscoveredExtension } from './discovery.ts';
import { ExtensionError } from './extension-error.ts';
import { extensionExport } from './extension-modules.ts';

/**
 * What the module of an extension's `shop.config` exports as `config`: the environment variables the
 * extension owns, documented, and how it reads them. Each problem goes through `read.problem(name, …)`,
 * as the core's configuration does; the platform checks every discovered extension's at start.
 */
export interface ExtensionConfig<T> {
  readonly variables: readonly VariableDoc[];
  /** Reads only the declared variables: reading another is a bug of the extension, thrown as an Error. */
  read(read: EnvReader): T;
}

/** An EnvReader that refuses a variable the declaration does not list. */
class DeclaredEnvReader extends EnvReader {
  readonly #declared: ReadonlySet<string>;

  constructor(env: NodeJS.ProcessEnv, declared: readonly VariableDoc[]) {
    super(env);
    this.#declared = new Set(declared.map((variable) => variable.name));
  }

  override optional(name: string): string | undefined {
    if (!this.#declared.has(name)) throw new Error(`reads ${name}, which its config's variables do not declare`);
    return super.optional(name);
  }
}

/** What the declaration reads from `env`, and one line per problem, each naming its variable. */
function readDeclared<T>(declaration: ExtensionConfig<T>, env: NodeJS.ProcessEnv): { value: T; problems: readonly string[] } {
  const reader = new DeclaredEnvReader(env, declaration.variables);
  const value = declaration.read(reader);
  return { value, problems: reader.problems };
}

/** The extension's configuration read from `env` (its own commands read it so), or a ConfigError naming each bad variable. */
export function loadExtensionConfig<T>(declaration: ExtensionConfig<T>, env: NodeJS.ProcessEnv = process.env): T {
  const { value, problems } = readDeclared(declaration, env);
  if (problems.length > 0) throw new ConfigError(problems);
  return value;
}

const isVariableDoc = (variable: Partial<VariableDoc> | null): boolean =>
  typeof variable?.name === 'string' && /^[A-Z][A-Z0-9_]*$/.test(variable.name) && typeof variable.description === 'string';

/** The declaration the module of `shop.config` exports, checked; undefined for an extension without one. */
export async function extensionConfigDeclaration(extension: DiscoveredExtension): Promise<ExtensionConfig<unknown> | undefined> {
  const modulePath = extension.manifest.config;
  if (modulePath === undefined) return undefined;
  const exported = (await extensionExport(extension, 'config', modulePath, 'config')) as Partial<ExtensionConfig<unknown>>;
  if (typeof exported.read !== 'function' || !Array.isArray(exported.variables) || !exported.variables.every(isVariableDoc)) {
    throw new ExtensionError(
      extension.id,
      `shop.config: "config" of ${modulePath} must be { variables: [{ name, description }, …], read(env) }, each name upper case (e.g. ACME_API_URL)`,
    );
  }
  return exported as ExtensionConfig<unknown>;
}

/**
 * Reads every extension's configuration from `env`: the extensions with it (`config`), and the problems,
 * one line each naming the extension and the variable. A variable belongs to one owner: an extension
 * declaring one the core or another extension reads is refused.
 * @throws ExtensionError for a config module that cannot be loaded, is malformed or reads what it does not declare.
 */
export async function configureExtensions(
  extensions: readonly DiscoveredExtension[],
  env: NodeJS.ProcessEnv,
): Promise<{ extensions: DiscoveredExtension[]; problems: string[] }> {
  const owners = new Map(VARIABLES.map((variable) => [variable.name, 'the core']));
  const configured: DiscoveredExtension[] = [];
  const problems: string[] = [];
  for (const extension of extensions) {
    const declaration = await extensionConfigDeclaration(extension);
    if (declaration === undefined) {
      configured.push(extension);
      continue;
    }
    for (const { name } of declaration.variables) {
      const owner = owners.get(name);
      if (owner !== undefined)
        throw new ExtensionError(extension.id, `shop.config: ${name} is read by ${owner}; an extension declares variables of its own`);
      owners.set(name, `extension ${extension.id}`);
    }
    let read: { value: unknown; problems: readonly string[] };
    try {
      read = readDeclared(declaration, env);
    } catch (error) {
      throw new ExtensionError(extension.id, `shop.config: ${(error as Error).message}`);
    }
    configured.push({ ...extension, config: read.value });
    problems.push(...read.problems.map((problem) => `extension ${extension.id}: ${problem}`));
  }
  return { extensions: configured, problems };
}
