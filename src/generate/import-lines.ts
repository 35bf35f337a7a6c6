import { importLayout } from './layout.js';
import { js } from './literal.js';

/** Import lines by module: `type X` for a type, `x as y` for an alias; one statement per module, laid out by width. */
export class Imports {
  readonly #byModule = new Map<string, Set<string>>();

  add(module: string, ...names: string[]): void {
    const set = this.#byModule.get(module) ?? new Set<string>();
    for (const name of names) set.add(name);
    this.#byModule.set(module, set);
  }

  print(): string {
    return [...this.#byModule]
      .map(([module, set]) => {
        const names = [...set];
        const typesOnly = names.every((n) => n.startsWith('type '));
        const list = typesOnly ? names.map((n) => n.slice('type '.length)) : names;
        return importLayout(`import ${typesOnly ? 'type ' : ''}`, list, ` from ${js(module)};`);
      })
      .join('\n');
  }
}
