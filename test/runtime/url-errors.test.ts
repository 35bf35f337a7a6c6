import { describe, expect, it } from 'vitest';
import { readConfig } from '../../runtime/src/config.js';
import { openDatabase } from '../../runtime/src/db/open.js';

/**
 * A DATABASE_URL or REDIS_URL refused at start names the scheme it has, and nothing else of the value: what comes
 * before the first colon of a URL without a scheme is a user name (`app:secret@db:5432/app`), or the whole secret.
 */
const refused = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('not refused');
};
const database = (url: string) => refused(() => openDatabase(url));
const redis = (url: string) => refused(() => readConfig({ JWT_SECRET: 'x'.repeat(32), REDIS_URL: url }));

describe('a URL refused for its scheme', () => {
  it.each([
    ['DATABASE_URL', database],
    ['REDIS_URL', redis],
  ] as const)('%s names a scheme it has', (_name, message) => {
    expect(message('mysql://app:hunter2@db/app')).toMatch(/, not "mysql:\/\/"$/);
    expect(message('mysql://app:hunter2@db/app')).not.toMatch(/hunter2|app:/);
  });

  it.each([
    ['DATABASE_URL', database],
    ['REDIS_URL', redis],
  ] as const)('%s shows nothing of one without a scheme', (_name, message) => {
    for (const value of ['deploy-user:hunter2@db:5432/app', 'hunter2', 'hunter2:']) {
      const text = message(value);
      expect(text).toMatch(/must start with .*\(the value is not shown: it may hold a password\)$/);
      expect(text).not.toMatch(/deploy-user|hunter2/);
    }
  });
});
