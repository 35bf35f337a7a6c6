import { describe, expect, it } from 'vitest';
import { dedent, problemsOf } from './helpers.js';

/**
 * A `{` or `[` left open (issue 56): reported at the bracket itself, and, when nothing else keeps the file from being
 * read, with every other problem of the file (the parser closes the map or list where its lines end).
 */
describe('a flow map or list left open', () => {
  it.each<{ name: string; file?: string; text: string; want: string[] }>([
    {
      name: 'a field on one line without its }: the brace, and the problems further down',
      text: `
        name: shop
        version: 1.0.0
        resources:
          products:
            fields:
              name: { type: string, required: true
              price: { type: number }
              stock: { type: integr }
          orders:
            fields:
              total: { type: number, min: x }
      `,
      want: [
        'api.yaml:6:13  (syntax)  this { is never closed: end the map with }',
        'api.yaml:8:22  resources.products.fields.stock.type  unknown type "integr" (did you mean "integer"?)',
        'api.yaml:11:35  resources.orders.fields.total.min  expected a number, got "x"',
      ],
    },
    {
      name: 'the last line of the file, and problems above it',
      text: `
        name: shop
        version: 1.0.0
        resources:
          products:
            fields:
              price: { type: numbr }
              name: { type: string, required: true
      `,
      want: [
        'api.yaml:6:22  resources.products.fields.price.type  unknown type "numbr" (did you mean "number"?)',
        'api.yaml:7:13  (syntax)  this { is never closed: end the map with }',
      ],
    },
    {
      name: 'a list',
      text: `
        name: shop
        version: 1.0.0
        resources:
          products:
            fields:
              kind:
                type: enum
                values: [a, b
              title: { type: strin }
      `,
      want: [
        'api.yaml:8:17  (syntax)  this [ is never closed: end the list with ]',
        'api.yaml:9:22  resources.products.fields.title.type  unknown type "strin" (did you mean "string"?)',
      ],
    },
    {
      name: 'a map inside a map, both left open: each brace',
      text: `
        name: shop
        version: 1.0.0
        resources:
          products:
            fields:
              size: { type: json, default: { x: 1
              title: { type: strin }
      `,
      want: [
        'api.yaml:6:13  (syntax)  this { is never closed: end the map with }',
        'api.yaml:6:36  (syntax)  this { is never closed: end the map with }',
        'api.yaml:7:22  resources.products.fields.title.type  unknown type "strin" (did you mean "string"?)',
      ],
    },
    {
      name: 'JSON without its last }',
      file: 'api.json',
      text: '{ "name": "shop", "version": "1.0.0", "resources": { "a": { "fields": { "n": "strin" } } }\n',
      want: [
        'api.json:1:1  (syntax)  this { is never closed: end the map with }',
        'api.json:1:78  resources.a.fields.n  unknown type "strin" (did you mean "string"?)',
      ],
    },
    {
      name: 'with another syntax error: the braces at their place, the rest not checked',
      text: `
        name: shop
        version: 1.0.0
        resources:
          products:
            fields:
              name: { type: string, required: true
              note: "unterminated
              stock: { type: integr }
      `,
      want: [
        'api.yaml:6:13  (syntax)  this { is never closed: end the map with }',
        // where the parser noticed: a quoted string may span lines
        'api.yaml:9:1  (syntax)  Missing closing "quote',
      ],
    },
  ])('$name', ({ file, text, want }) => {
    expect(problemsOf(dedent(text), file)).toEqual(want);
  });
});
