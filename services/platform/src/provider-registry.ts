import type { Config } from './config/config.ts';

/** A provider of one of the platform's ports (file storage, payment gateways), registered by name. */
export interface NamedProvider {
  readonly name: string;
  /**
   * Whether the configuration sets the provider up. Only a configured provider is chosen by default, so
   * an installed but unconfigured one does not take over. Absent: always.
   */
  isConfigured?(config: Config): boolean;
}

/** The providers of one port by name, in the order registered: the core's first, then the extensions'. */
export class ProviderRegistry<Provider extends NamedProvider> {
  readonly #kind: string;
  readonly #providers: Provider[] = [];

  /** `kind` names a provider in messages: `file storage provider`. */
  constructor(kind: string) {
    this.#kind = kind;
  }

  register(provider: Provider): void {
    if (this.#providers.some(({ name }) => name === provider.name))
      throw new Error(`a ${this.#kind} named "${provider.name}" is registered already`);
    this.#providers.push(provider);
  }

  names(): string[] {
    return this.#providers.map(({ name }) => name);
  }

  protected named(name: string): Provider | undefined {
    return this.#providers.find((provider) => provider.name === name);
  }

  /** The last registered of those the configuration sets up; undefined when none is. */
  lastConfigured(config: Config): Provider | undefined {
    return this.#providers.findLast((provider) => provider.isConfigured?.(config) ?? true);
  }
}
