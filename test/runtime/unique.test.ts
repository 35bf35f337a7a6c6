import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConstraintError } from '../../runtime/src/db/database.js';
import { installErrorHandlers, type UniqueKey } from '../../runtime/src/http/errors.js';

/** The 409 of a unique violation as each database names it: given what the driver says, want the fields named. */
const LONG = 'contacts_external_reference_code_for_the_accounting_system_export_key';
const KEYS: UniqueKey[] = [
  {
    index: 'contacts_email_lower_key',
    columns: ['email'],
    fields: ['email'],
    message: 'a contact with this email already exists',
  },
  { index: 'contacts_region_number_key', columns: ['region', 'number'], fields: ['region', 'number'], message: 'two' },
  { index: LONG, columns: ['external_reference'], fields: ['externalReference'], message: 'long' },
];

async function answer(error: ConstraintError) {
  const app = Fastify();
  installErrorHandlers(app);
  app.post('/contacts', { config: { uniqueKeys: KEYS, constraintMessages: { unique: 'generic' } } }, async () => {
    throw error;
  });
  const response = await app.inject({ method: 'POST', url: '/contacts' });
  await app.close();
  const body = response.json<{ detail: string; errors?: { path: string }[] }>();
  return [response.statusCode, body.detail, (body.errors ?? []).map((e) => e.path)];
}

describe('the 409 of a unique violation (found by a newcomer, and a reviewer on PostgreSQL)', () => {
  it.each<[string, ConstraintError, unknown[]]>([
    // SQLite names the columns of a plain unique index, and the index of an expression one
    ['SQLite, columns', new ConstraintError('unique', ['region', 'number']), [409, 'two', ['/region', '/number']]],
    [
      'SQLite, an expression index',
      new ConstraintError('unique', [], 'contacts_email_lower_key'),
      [409, 'a contact with this email already exists', ['/email']],
    ],
    // PostgreSQL names the index, cut to 63 bytes
    [
      'PostgreSQL, an index',
      new ConstraintError('unique', ['region', 'number'], 'contacts_region_number_key'),
      [409, 'two', ['/region', '/number']],
    ],
    [
      'PostgreSQL, a long index',
      new ConstraintError('unique', [], LONG.slice(0, 63)),
      [409, 'long', ['/externalReference']],
    ],
    ['an index of no key', new ConstraintError('unique', [], 'other_key'), [409, 'generic', []]],
    ['columns of no key', new ConstraintError('unique', ['region']), [409, 'generic', []]],
  ])('%s', async (_, error, want) => {
    expect(await answer(error)).toEqual(want);
  });
});
