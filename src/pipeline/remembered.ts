/**
 * A digest of each path's text, remembered until the next text of that path. Under `generate --watch` one process
 * runs again and again, and most files of a regeneration are rendered, formatted and found on disk as they were the
 * last time: comparing a text with the one remembered costs a fraction of hashing it again (for a 12 MB OpenAPI
 * document, a few milliseconds against fifteen). A digest is only ever returned for the very text it was made of; one
 * entry a path, so that what is held is no larger than the project.
 */
export class Remembered {
  readonly #last = new Map<string, { text: string; digest: string }>();

  constructor(private readonly digest: (text: string) => string) {}

  of(path: string, text: string): string {
    const last = this.#last.get(path);
    if (last !== undefined && last.text === text) return last.digest;
    const digest = this.digest(text);
    this.#last.set(path, { text, digest });
    return digest;
  }
}
