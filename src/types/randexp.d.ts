// randexp ships no type declarations; this is the part of its API restsmith uses.
declare module 'randexp' {
  export default class RandExp {
    constructor(pattern: string | RegExp, flags?: string);
    /** the largest repetition of an unbounded quantifier (`*`, `+`) */
    max: number;
    /** picks an integer in [a, b]; replace it for deterministic output */
    randInt: (a: number, b: number) => number;
    gen(): string;
  }
}
