/** A problem with one extension: the message names it (its id, or its package folder before the id is known). */
export class ExtensionError extends Error {
  constructor(extension: string, problem: string) {
    super(`extension ${extension}: ${problem}`);
    this.name = 'ExtensionError';
  }
}
