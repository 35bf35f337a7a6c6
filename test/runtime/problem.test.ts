import { describe, expect, it } from 'vitest';
import { notImplemented } from '../../runtime/src/http/problem.js';

describe('notImplemented', () => {
  it.each([
    ['POST /entries/:id/archive', 'POST /entries/{id}/archive has no handler yet: write it in src/handlers/'],
    ['GET /entries/:id/quote', 'GET /entries/{id}/quote has no handler yet: write it in src/handlers/'],
    // the stub of a POST action as an earlier restsmith wrote it into the user's file: its path alone
    ['/entries/export', 'POST /entries/export has no handler yet: write it in src/handlers/'],
  ])('%s: a 501 that names the route', (route, detail) => {
    expect(notImplemented(route)).toMatchObject({ status: 501, title: 'Not Implemented', detail });
  });
});
