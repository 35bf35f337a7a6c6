import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AccessRule, Operation, Resource } from '../../../src/model.js';
import { importsOf, code } from '../../../src/generate/code.js';
import { ownerView } from '../../../src/generate/owner-view.js';
import { resourceView } from '../../../src/generate/resource-view.js';
import { nestedView } from '../../../src/generate/nested-view.js';
import { readDefinition } from '../../../src/pipeline/read-definition.js';
import { anOrA } from '../../../src/naming.js';
import { guardedOperations, routesView } from '../../../src/generate/routes-view.js';
import { rt } from '../../../src/generate/symbols.js';
import { api, field, resource } from '../../helpers/model.js';

const everyone: AccessRule = [{ kind: 'public' }];
const signedIn: AccessRule = [{ kind: 'authenticated' }];
const owners: AccessRule = [{ kind: 'owner' }];

/** notes with these rules; `owner`: ownerId is their owner, set by the server */
const withAccess = (access: Partial<Record<Operation, AccessRule>>, extra: Partial<Resource> = {}): Resource => {
  const ownerId = field('ownerId', 'string', { readOnly: extra.owners !== undefined });
  const base = resource('notes', [field('title', 'string'), ownerId], extra);
  return { ...base, access: { ...base.access, ...access } };
};

/** Which routes run the access guard: given access rules and an owner field, want the guarded operations. */
describe('guarded routes', () => {
  it.each<[string, Resource, Operation[]]>([
    ['every rule needs a token', withAccess({}), ['list', 'create', 'read', 'update', 'delete']],
    ['public reads need no guard', withAccess({ list: everyone, read: everyone }), ['create', 'update', 'delete']],
    [
      'a public create that sets a read-only owner field needs the caller',
      withAccess({ create: everyone }, { owners: ['ownerId'] }),
      ['list', 'create', 'read', 'update', 'delete'],
    ],
    [
      'a public create without an owner needs no guard',
      withAccess({ create: everyone, update: everyone }),
      ['list', 'read', 'delete'],
    ],
  ])('%s', (_, given, want) => {
    const guarded = guardedOperations(given, ownerView(api([given]), given));
    expect(Object.entries(guarded).flatMap(([op, yes]) => (yes ? [op] : []))).toEqual(want);
  });
});

/** Where the owner field is written by clients: which routes check it against the caller, and whom stores restrict to. */
describe('owned writes', () => {
  const writableOwner = (update: AccessRule): Resource => ({
    ...resource('notes', [field('ownerId', 'string')], { owners: ['ownerId'] }),
    access: { list: owners, read: everyone, create: signedIn, update, delete: owners },
  });
  const routes = (given: Resource) => {
    const view = routesView(given, ownerView(api([given]), given), 'Note', 'still referenced', false);
    return Object.fromEntries(view.routes.map((r) => [r.method === 'get' ? `get ${r.url}` : r.method, r]));
  };

  it.each<[string, AccessRule, string]>([
    ['an update for owners has its statement check who gives the record away', owners, ', giverOf(request.scope))'],
    // SPEC §12: only staff and the administrator change owner fields, whoever the rule admits
    ['a public update too (its guard says who the caller is)', everyone, ', giverOf(request.scope))'],
  ])('%s', (_, update, want) => {
    const byMethod = routes(writableOwner(update));
    expect(byMethod.put?.input).toBe('request.body');
    expect(byMethod.put?.write.endsWith(`expected${want}`)).toBe(true);
    expect(byMethod.patch?.write.endsWith(`expected${want}`)).toBe(true);
    expect(byMethod.post?.input).toBe('owned(request.body, request.scope)');
  });

  it('restricts guarded routes to the scope, and unguarded ones to no one', () => {
    const byMethod = routes(writableOwner(owners));
    expect(byMethod["get '/notes'"]?.owner).toBe(', request.scope.owner');
    expect(byMethod["get '/notes/:id'"]?.owner).toBe(', null');
  });

  it('types the owner field of a body as the body has it: null where the field is nullable', () => {
    const nullable = resource('notes', [field('ownerId', 'string', { nullable: true })], { owners: ['ownerId'] });
    expect(ownerView(api([nullable]), nullable)?.defaulted[0]?.type).toBe('string | null');
    const plainOwner = resource('notes', [field('ownerId', 'string')], { owners: ['ownerId'] });
    expect(ownerView(api([plainOwner]), plainOwner)?.defaulted[0]?.type).toBe('string');
  });

  it('with several owner fields, lets a create leave out any of them, unless a server-set one comes first', () => {
    const [patientId, doctorId] = [field('patientId', 'string'), field('doctorId', 'string', { required: true })];
    const both = resource('visits', [patientId, doctorId], { owners: ['patientId', 'doctorId'] });
    expect(ownerView(api([both]), both)?.defaulted.map((o) => [o.key, o.required])).toEqual([
      ['patientId', false],
      ['doctorId', true],
    ]);
    const createdBy = field('createdBy', 'string', { readOnly: true });
    const serverFirst = resource('visits', [createdBy, doctorId], { owners: ['createdBy', 'doctorId'] });
    const view = ownerView(api([serverFirst]), serverFirst);
    expect([view?.defaulted, view?.readOnly, view?.givable]).toEqual([[], true, true]);
  });

  it('passes no owner where the resource has none', () => {
    const plain = resource('tags', [field('label', 'string')]);
    expect(routesView(plain, undefined, 'Tag', '', false).routes.map((r) => r.owner)).toEqual(['', '', '', '', '', '']);
  });

  it.each<[boolean, Record<string, string>]>([
    [
      true,
      {
        post: 'references.write(request, () => store.create(request.body))',
        // a ref sent back as the record holds it needs no read check (the stored record says)
        put: 'references.write(request, () => store.replace(id, input, expected), { stored: async () => (await store.get(id))?.record })',
        patch:
          'references.write(request, () => store.patch(id, patch, expected), { stored: async () => (await store.get(id))?.record })',
      },
    ],
    [false, { post: 'store.create(request.body)', put: 'store.replace(id, input, expected)' }],
  ])('writes through References where a body may send refs (%s)', (refers, want) => {
    const plain = resource('tags', [field('label', 'string')]);
    const writes = Object.fromEntries(
      routesView(plain, undefined, 'Tag', '', refers).routes.map((r) => [r.method, r.write]),
    );
    expect(writes).toMatchObject(want);
  });

  it('checks every ref an update sends where its rule admits callers the read rule does not', () => {
    const hidden = withAccess({ read: [{ kind: 'role', role: 'editor' }], update: signedIn });
    const writes = Object.fromEntries(
      routesView(hidden, undefined, 'Note', '', true).routes.map((r) => [r.method, r.write]),
    );
    expect(writes).toMatchObject({
      put: 'references.write(request, () => store.replace(id, input, expected))',
      patch: 'references.write(request, () => store.patch(id, patch, expected))',
    });
  });
});

/** The methods each path takes (the others answer 405): given operations, want the guards. */
describe('method guards', () => {
  it.each<[Operation[], { url: string; allowed: string[] }[]]>([
    [
      ['list', 'read', 'create', 'update', 'delete'],
      [
        { url: '/notes', allowed: ['GET', 'POST'] },
        { url: '/notes/:id', allowed: ['GET', 'PUT', 'PATCH', 'DELETE'] },
      ],
    ],
    [
      ['list', 'read'],
      [
        { url: '/notes', allowed: ['GET'] },
        { url: '/notes/:id', allowed: ['GET'] },
      ],
    ],
    [['create'], [{ url: '/notes', allowed: ['POST'] }]],
    [[], []],
  ])('%j', (operations, want) => {
    const given = resource('notes', [], { operations });
    expect(resourceView(api([given]), given).methodGuards).toEqual(want);
  });
});

/** Imports are computed from what a file prints. */
describe('planned imports', () => {
  it('groups by module, packages first, values before types, each name once', () => {
    const used = [
      code`${rt.codec('text')}(row.a)`,
      code`${rt.codec('numeric')}(row.b) ${rt.uuidv7}()`,
      code`${rt.Row} ${rt.DatabaseUnavailableError} ${rt.Row}`,
    ];
    expect(importsOf(used.flatMap((c) => c.uses))).toBe(
      [
        "import { v7 as uuidv7 } from 'uuid';",
        "import { numeric, text } from '../../db/codec.js';",
        "import { DatabaseUnavailableError, type Row } from '../../db/database.js';",
      ].join('\n'),
    );
  });

  it('imports a name used as a value and as a type as a value, and `import type` when only types are used', () => {
    expect(importsOf([rt.Page, { ...rt.Versioned }, { name: 'Page', from: '../../types.js' }])).toBe(
      "import { Page, type Versioned } from '../../types.js';",
    );
    expect(importsOf([rt.Page, rt.Versioned])).toBe("import type { Page, Versioned } from '../../types.js';");
  });

  it('prints what a store uses, and only that', () => {
    const plainNotes = resource('notes', [field('title', 'string', { required: true })]);
    const { store } = resourceView(api([plainNotes]), plainNotes);
    expect(store.imports).toContain("import { v7 as uuidv7 } from 'uuid';");
    expect(store.imports).not.toMatch(/merges|mergePatch|DatabaseUnavailableError|ActionOutcome|subjectAsId/);
    const tasks = resource('tasks', [field('done', 'boolean')], { id: 'integer' });
    expect(resourceView(api([tasks]), tasks).store.imports).not.toContain('uuid');
    expect(resourceView(api([tasks]), tasks).store.imports).toContain('toFlag');
  });
});

describe('articles in messages', () => {
  it.each([
    ['user', 'a'],
    ['unit', 'a'],
    ['update', 'an'],
    ['umbrella', 'an'],
    ['entry', 'an'],
    ['order', 'an'],
    ['post', 'a'],
  ])('%s → %s', (word, want) => {
    expect(anOrA(word)).toBe(want);
  });
});

describe('nested creates', () => {
  // found by a reviewer: nested.ts imported `inputUnderBrbitTDGpesaPp`, schemas.ts exported `inputUnderBrbitTdGpesaPp`
  it.each(['authorId', 'mainAUthorId', 'brbitTDGpesaPpId', 'xId'])(
    'import under %s the names the target’s schemas and model export',
    async (refField) => {
      const path = join(mkdtempSync(join(tmpdir(), 'nested-')), 'd.yaml');
      writeFileSync(
        path,
        `name: t\nversion: 1.0.0\nresources:\n  authors: { fields: { name: string } }\n` +
          `  books: { fields: { ${refField}: { type: ref, to: authors, required: true } } }\n`,
      );
      const read = await readDefinition(path);
      const [authors, books] = read.resources;
      if (authors === undefined || books === undefined) return expect.fail('no resources');
      const under = resourceView(read, books).createdUnder[0] ?? expect.fail('no create under authors');
      const imports = nestedView(read, authors, 'no author has this id')?.imports ?? '';
      expect(imports).toContain(`${under.schemaName} as books${under.schemaName.replace(/^i/, 'I')}`);
      expect(imports).toContain(under.typeName);
    },
  );
});
