/**
 * A small definition for the tests of what a regeneration reuses: makers and parts with a ref between them (each in
 * the other's neighbourhood), and audits on their own (in no one's). `extra` adds fields to parts.
 */
export const shopDefinition = (extra = ''): string =>
  [
    'name: shop',
    'version: 1.0.0',
    'auth: { default: public }',
    'resources:',
    '  makers:',
    '    fields: { name: string }',
    '  parts:',
    `    fields: { label: string, makerId: { type: ref, to: makers }${extra} }`,
    '  audits:',
    '    fields: { note: string }',
  ].join('\n');
