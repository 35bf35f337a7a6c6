import { describe, expect, it } from 'vitest';
import type { Action, Api, Field, Limits, Resource } from '../../../src/model.js';
import { names } from '../../../src/naming.js';
import { normalise } from '../../../src/pipeline/normalise.js';
import { api, field, resource } from '../../helpers/model.js';
import { dedent, definitionOf, withResources } from './helpers.js';

const normalised = (text: string): Api => normalise(definitionOf(text));

/** The fields of the only resource of a definition whose body is `fields`. */
function fieldsOf(fields: string): Field[] {
  const indented = dedent(fields)
    .split('\n')
    .map((line) => (line === '' ? line : `    ${line}`))
    .join('\n');
  return normalised(withResources(`posts:\n  fields:\n${indented}`)).resources[0]?.fields ?? [];
}

describe('normalise: fields', () => {
  it.each([
    { name: 'shorthand', given: 'title: string', want: field('title', 'string') },
    { name: 'shorthand of each simple type', given: 'meta: json', want: field('meta', 'json') },
    {
      name: 'options of a string',
      given:
        'email: { type: string, required: true, unique: true, minLength: 3, maxLength: 200, format: email, pattern: "@" }',
      want: field('email', 'string', {
        required: true,
        unique: true,
        minLength: 3,
        maxLength: 200,
        format: 'email',
        pattern: '@',
      }),
    },
    {
      name: 'camelCase name: snake column',
      given: 'publishedAt: { type: datetime, nullable: true, readOnly: true }',
      want: field('publishedAt', 'datetime', { nullable: true, readOnly: true }),
    },
    {
      name: 'enum with default',
      given: 'status: { type: enum, values: [draft, live], default: draft, index: true }',
      want: field('status', 'enum', { values: ['draft', 'live'], default: 'draft', index: true }),
    },
    {
      name: 'ref: onDelete defaults to restrict',
      given: 'authorId: { type: ref, to: posts }',
      want: field('authorId', 'ref', { ref: { to: 'posts', onDelete: 'restrict', as: 'author', inverse: 'posts' } }),
    },
    {
      name: 'ref naming its relation and inverse',
      given: 'writerId: { type: ref, to: posts, as: writer, inverse: writtenItems }',
      want: field('writerId', 'ref', {
        ref: { to: 'posts', onDelete: 'restrict', as: 'writer', inverse: 'writtenItems' },
      }),
    },
    {
      name: 'ref with onDelete',
      given: 'parentId: { type: ref, to: posts, nullable: true, onDelete: setNull }',
      want: field('parentId', 'ref', {
        nullable: true,
        ref: { to: 'posts', onDelete: 'setNull', as: 'parent', inverse: 'posts' },
      }),
    },
    {
      name: 'integer range, description, renamedFrom, writeOnly',
      given:
        'views: { type: integer, min: 0, max: 10, default: 0, description: Count, renamedFrom: hits, writeOnly: true }',
      want: field('views', 'integer', {
        min: 0,
        max: 10,
        default: 0,
        description: 'Count',
        renamedFrom: 'hits',
        writeOnly: true,
      }),
    },
    {
      name: 'an explicit null default is kept',
      given: 'note: { type: text, nullable: true, default: null }',
      want: field('note', 'text', { nullable: true, default: null }),
    },
    {
      name: 'a json default',
      given: 'meta: { type: json, default: { tags: [a] } }',
      want: field('meta', 'json', { default: { tags: ['a'] } }),
    },
  ])('$name', ({ given, want }) => {
    expect(fieldsOf(given)).toEqual([want]);
  });

  it('computes names and columns', () => {
    const [f] = fieldsOf('authorId: string');
    expect(f?.names).toEqual({ camel: 'authorId', pascal: 'AuthorId', snake: 'author_id', kebab: 'author-id' });
    expect(f?.column).toBe('author_id');
  });

  it('keeps the order of the file', () => {
    expect(fieldsOf('zeta: string\nalpha: string\nmid: string').map((f) => f.name)).toEqual(['zeta', 'alpha', 'mid']);
  });
});

describe('normalise: resources', () => {
  it.each([
    { given: 'posts', want: { typeName: 'Post', table: 'posts', kebab: 'posts' } },
    { given: 'blog-posts', want: { typeName: 'BlogPost', table: 'blog_posts', kebab: 'blog-posts' } },
    { given: 'categories', want: { typeName: 'Category', table: 'categories', kebab: 'categories' } },
    { given: 'people', want: { typeName: 'Person', table: 'people', kebab: 'people' } },
  ])('$given: names, typeName, table', ({ given, want }) => {
    const [r] = normalised(withResources(`${given}: { fields: {} }`)).resources;
    expect({ typeName: r?.typeName, table: r?.table, kebab: r?.names.kebab }).toEqual(want);
  });

  it('applies every default to a minimal definition', () => {
    const got = normalised(withResources('posts:\n  fields:\n    title: string'));
    const want: Api = api([resource('posts', [field('title', 'string')])], { name: 't', version: '1' });
    expect(got).toEqual(want);
  });

  it('takes access from the resource, else from auth.default, and orders operations', () => {
    const got = normalised(
      dedent(`
        name: t
        version: "1"
        auth: { default: [public], roles: [admin, editor] }
        resources:
          posts:
            id: integer
            owner: authorId
            operations: [delete, list, read]
            fields: { authorId: string }
            access: { update: [editor, owner, editor], delete: admin }
      `),
    );
    const want: Resource = resource('posts', [field('authorId', 'string')], {
      id: 'integer',
      owners: ['authorId'],
      operations: ['list', 'read', 'delete'],
      access: {
        list: [{ kind: 'public' }],
        read: [{ kind: 'public' }],
        create: [{ kind: 'public' }],
        update: [{ kind: 'role', role: 'editor' }, { kind: 'owner' }],
        delete: [{ kind: 'role', role: 'admin' }],
      },
    });
    expect(got.resources).toEqual([want]);
    expect(got.auth).toEqual({ default: [{ kind: 'public' }], adminRole: 'admin', roles: ['admin', 'editor'] });
  });
});

describe('normalise: actions', () => {
  it('expands when values to lists, now to a clock value, input to fields; access defaults to auth.default', () => {
    const got = normalised(
      withResources(`
        posts:
          fields:
            status: { type: enum, values: [draft, live, gone], default: draft }
            publishedAt: { type: datetime, nullable: true }
          actions:
            publish:
              on: item
              access: [admin]
              when: { status: [draft, gone], publishedAt: null }
              set: { status: live, publishedAt: now }
            import:
              on: collection
              description: Bulk import.
              input:
                fields: { items: { type: json, required: true } }
      `),
    );
    const want: Action[] = [
      {
        name: 'publish',
        names: names('publish'),
        on: 'item',
        method: 'post',
        access: [{ kind: 'role', role: 'admin' }],
        when: [
          { field: 'status', values: ['draft', 'gone'] },
          { field: 'publishedAt', values: [null] },
        ],
        set: [
          { field: 'status', value: { kind: 'literal', value: 'live' } },
          { field: 'publishedAt', value: { kind: 'now' } },
        ],
        input: [],
      },
      {
        name: 'import',
        names: names('import'),
        on: 'collection',
        method: 'post',
        access: [{ kind: 'authenticated' }],
        when: [],
        set: [],
        input: [field('items', 'json', { required: true })],
        description: 'Bulk import.',
      },
    ];
    expect(got.resources[0]?.actions).toEqual(want);
  });

  it('writes datetime when and set values as records return them (UTC, milliseconds, Z); others as written', () => {
    const got = normalised(
      withResources(`
        slots:
          fields:
            at: { type: datetime, nullable: true }
            day: { type: date, nullable: true }
            label: { type: string, nullable: true }
          access:
            update: { access: admin, when: { at: "2024-05-01T14:00:00+02:00" } }
          actions:
            move:
              on: item
              when: { at: ["2024-05-01T12:00:00Z", null], day: "2024-05-01", label: "2024-05-01T12:00:00Z" }
              set: { at: "2024-05-02T09:30:00-01:00", label: "2024-05-01T14:00:00+02:00" }
      `),
    );
    const slots = got.resources[0];
    expect(slots?.writableWhen.update).toEqual([{ field: 'at', values: ['2024-05-01T12:00:00.000Z'] }]);
    expect(slots?.actions[0]?.when).toEqual([
      { field: 'at', values: ['2024-05-01T12:00:00.000Z', null] },
      { field: 'day', values: ['2024-05-01'] },
      { field: 'label', values: ['2024-05-01T12:00:00Z'] },
    ]);
    expect(slots?.actions[0]?.set).toEqual([
      { field: 'at', value: { kind: 'literal', value: '2024-05-02T10:30:00.000Z' } },
      { field: 'label', value: { kind: 'literal', value: '2024-05-01T14:00:00+02:00' } },
    ]);
  });
});

describe('normalise: api', () => {
  const head = (extra: string): string => `name: t\nversion: "1"\n${extra}\nresources:\n  posts: { fields: {} }\n`;

  it.each<{ name: string; given: string; want: Limits }>([
    {
      name: 'defaults',
      given: '',
      want: {
        pageSize: { default: 20, max: 100 },
        bodySize: 1048576,
        rateLimit: { max: 300, windowMs: 60000 },
        includeDepth: 2,
        include: { maxRecords: 1000 },
      },
    },
    {
      name: 'sizes and durations',
      given: 'limits: { pageSize: { default: 5, max: 50 }, bodySize: 512kb, rateLimit: { max: 10, window: 30s } }',
      want: {
        pageSize: { default: 5, max: 50 },
        bodySize: 524288,
        rateLimit: { max: 10, windowMs: 30000 },
        includeDepth: 2,
        include: { maxRecords: 1000 },
      },
    },
    {
      name: 'a number of bytes; a small max lowers the default page size',
      given: 'limits: { bodySize: 2048, pageSize: { max: 10 }, rateLimit: { window: 1h } }',
      want: {
        pageSize: { default: 10, max: 10 },
        bodySize: 2048,
        rateLimit: { max: 300, windowMs: 3600000 },
        includeDepth: 2,
        include: { maxRecords: 1000 },
      },
    },
    {
      name: 'a large default raises the max page size',
      given: 'limits: { pageSize: { default: 150 } }',
      want: {
        pageSize: { default: 150, max: 150 },
        bodySize: 1048576,
        rateLimit: { max: 300, windowMs: 60000 },
        includeDepth: 2,
        include: { maxRecords: 1000 },
      },
    },
    {
      name: 'a budget for embedding',
      given: 'limits: { includeDepth: 3, include: { maxRecords: 50 } }',
      want: {
        pageSize: { default: 20, max: 100 },
        bodySize: 1048576,
        rateLimit: { max: 300, windowMs: 60000 },
        includeDepth: 3,
        include: { maxRecords: 50 },
      },
    },
  ])('limits: $name', ({ given, want }) => {
    expect(normalised(head(given)).limits).toEqual(want);
  });

  it.each([
    {
      given: '',
      want: { prefix: '', auth: { default: [{ kind: 'authenticated' }], adminRole: 'admin', roles: ['admin'] } },
    },
    {
      given: 'prefix: /api/v2\nauth: { adminRole: boss, default: [authenticated, authenticated] }',
      want: { prefix: '/api/v2', auth: { default: [{ kind: 'authenticated' }], adminRole: 'boss', roles: ['boss'] } },
    },
  ])('prefix and auth: $given', ({ given, want }) => {
    expect(normalised(head(given))).toMatchObject(want);
  });

  it.each([
    { given: '', want: undefined },
    {
      given: 'cors: { origins: [https://app.example.com] }',
      want: { origins: ['https://app.example.com'], credentials: false, maxAgeSeconds: 600 },
    },
    {
      given: 'cors: { origins: "*", maxAge: 2h }',
      want: { origins: '*', credentials: false, maxAgeSeconds: 7200 },
    },
  ])('cors: $given', ({ given, want }) => {
    expect(normalised(head(given)).cors).toEqual(want);
  });

  it.each([
    { given: '', want: undefined },
    {
      given: 'events: {}',
      want: {
        retention: '7d',
        retentionMs: 7 * 86_400_000,
        webhooks: false,
        retry: { attempts: 8, firstDelayMs: 30_000 },
      },
    },
    {
      given: 'events: { retention: 12h, webhooks: true, retry: { attempts: 3, firstDelay: 500ms } }',
      want: { retention: '12h', retentionMs: 43_200_000, webhooks: true, retry: { attempts: 3, firstDelayMs: 500 } },
    },
  ])('events: $given', ({ given, want }) => {
    expect(normalised(head(given)).events).toEqual(want);
  });

  it('keeps title and description', () => {
    expect(normalised(head('title: Blog\ndescription: Posts.'))).toMatchObject({
      title: 'Blog',
      description: 'Posts.',
    });
  });
});

describe('normalise: relations', () => {
  it('makes a to-one relation of each ref field and a to-many one on its target, none of a write-only ref', () => {
    const api = normalised(
      withResources(
        [
          'authors:',
          '  fields: { name: string }',
          'books:',
          '  fields:',
          '    authorId: { type: ref, to: authors }',
          '    editorId: { type: ref, to: authors, as: editor, inverse: editedBooks }',
          '    secretId: { type: ref, to: authors, as: secret, inverse: secretBooks, writeOnly: true }',
        ].join('\n'),
      ),
    );
    const relations = (name: string) =>
      api.resources.find((r) => r.name === name)?.relations.map((r) => `${r.kind} ${r.name} ${r.target}.${r.field}`);
    expect(relations('books')).toEqual(['one author authors.authorId', 'one editor authors.editorId']);
    expect(relations('authors')).toEqual(['many books books.authorId', 'many editedBooks books.editorId']);
  });
});

describe('normalise: problems', () => {
  it.each([
    ['', '', '/problems'],
    ['prefix: /api/v1', '', '/api/v1/problems'],
    ['prefix: /api/v1', 'problems: { base: "https://errors.example.com/shop" }', 'https://errors.example.com/shop'],
  ])('given %j and %j, problem types live under %s', (prefix, problems, base) => {
    const text = `name: t\nversion: "1"\n${prefix}\n${problems}\nresources:\n  posts:\n    fields: {}\n`;
    expect(normalised(text).problemsBase).toBe(base);
  });
});
