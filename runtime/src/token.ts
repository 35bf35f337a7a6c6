import { parseArgs } from 'node:util';
import { signToken } from './auth/sign.js';

/**
 * Prints a development token signed with JWT_SECRET (HS256):
 *   npm run token -- --sub alice --roles admin,editor --expires 2h
 */
const usage = 'usage: npm run token -- --sub <subject> [--roles a,b] [--expires 1h]';

function options() {
  try {
    return parseArgs({
      options: {
        sub: { type: 'string' },
        roles: { type: 'string', multiple: true, default: [] },
        expires: { type: 'string', default: '1h' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
}

const values = options();
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const secret = process.env.JWT_SECRET;
if (values.sub === undefined || values.sub === '') {
  console.error(usage);
  process.exit(2);
}
if (secret === undefined || Buffer.byteLength(secret) < 32) {
  console.error('set JWT_SECRET (32 bytes or more) to the secret the server uses');
  process.exit(2);
}

const roles = values.roles.flatMap((list) => list.split(',')).filter((role) => role !== '');
console.log(
  await signToken(secret, {
    subject: values.sub,
    roles,
    expires: values.expires,
    ...(process.env.JWT_ISSUER && { issuer: process.env.JWT_ISSUER }),
    ...(process.env.JWT_AUDIENCE && { audience: process.env.JWT_AUDIENCE }),
  }),
);
