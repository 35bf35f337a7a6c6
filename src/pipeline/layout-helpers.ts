import type Handlebars from 'handlebars';
import {
  arrayLayout,
  arrowLayout,
  conditionalLayout,
  expressionLayout,
  hugs,
  lastFunctionLayout,
  objectLayout,
  signatureLayout,
  unionArgumentLayout,
} from '../generate/layout.js';

/**
 * The block helpers of the templates in prettier's shape (render.ts, IN_SHAPE): each lays out the line (or the route)
 * it wraps as prettier lays it out by its width (generate/layout.ts), at the indent the template wrote for it. Inside
 * a route's body they lay out for the indent the body ends up at; render.ts's `tsProperty` and `tsAssigned` do not
 * (they are not used there).
 */
export const layoutHelpers: Handlebars.HelperDeclareSpec = {
  /**
   * A line laid out as prettier lays it out by its width (generate/layout.ts), at the indent of the template's line:
   * a signature (its `{` added here), a call, an arrow function with an expression body, a conditional assigned, a
   * statement ending with an object or an array
   */
  signature: function (this: unknown, indent: unknown, options: Handlebars.HelperOptions) {
    return laidOut(signatureLayout, `${options.fn(this)} {`, indent, options);
  },
  call: function (this: unknown, indent: unknown, options: Handlebars.HelperOptions) {
    return laidOut(expressionLayout, options.fn(this), indent, options);
  },
  arrow: function (this: unknown, indent: unknown, options: Handlebars.HelperOptions) {
    return laidOut(arrowLayout, options.fn(this), indent, options);
  },
  conditional: function (this: unknown, indent: unknown, options: Handlebars.HelperOptions) {
    return laidOut(conditionalLayout, options.fn(this), indent, options);
  },
  array: function (this: unknown, indent: unknown, options: Handlebars.HelperOptions) {
    return laidOut(arrayLayout, options.fn(this), indent, options);
  },
  object: function (this: unknown, indent: unknown, options: Handlebars.HelperOptions) {
    return laidOut(objectLayout, options.fn(this), indent, options);
  },
  /** the first line of a prepared statement, `readonly #name = this.prepare<names>(`, which its SQL's backtick ends */
  statement: function (this: unknown, indent: unknown, options: Handlebars.HelperOptions) {
    const layout = (line: string, at: number): string => unionArgumentLayout(`${line}\``, at).slice(0, -1);
    return laidOut(layout, options.fn(this), indent, options);
  },
  /**
   * A call whose last argument is a function with a block body, from its first line to its `});` (a route): the
   * function hugged when the first line fits, else the body rendered again for two columns further in (its laid-out
   * lines laid out for that indent) and the call broken (generate/layout.ts, lastFunctionLayout)
   */
  lastFunction: function (this: unknown, indent: unknown, options: Handlebars.HelperOptions) {
    const hugged = options.fn(this);
    if (!hugged.includes('\n')) return laidOut(lastFunctionLayout, hugged, indent, options);
    const head = hugged.slice(0, hugged.indexOf('\n'));
    if (hugs(' '.repeat(Number(indent) + shiftOf(options)) + head)) return hugged;
    const data = { ...options.data, shift: shiftOf(options) + 2 };
    return laidOut(lastFunctionLayout, options.fn(this, { data }), indent, options);
  },
};

/**
 * `text`, a line at `indent` whose indent the template wrote, laid out by `layout` (the indent left to the template).
 * Inside a call whose function's body goes two columns further in (lastFunction), the line is laid out for that
 * indent, and its lines after the first two columns less in (lastFunction adds them).
 */
function laidOut(
  layout: (line: string, indent: number) => string,
  text: string,
  indent: unknown,
  options: Handlebars.HelperOptions,
): string {
  const shift = shiftOf(options);
  const at = Number(indent) + shift;
  const pad = ' '.repeat(at);
  const lines = layout(pad + text, at).slice(pad.length);
  return shift === 0 ? lines : lines.replaceAll(`\n${' '.repeat(shift)}`, '\n');
}

/** how many columns further in than its template writes it the block being rendered goes (see laidOut) */
const shiftOf = (options: Handlebars.HelperOptions): number => Number(options.data?.shift ?? 0);
