import { describe, expect, it } from 'vitest';
import { DefinitionError } from '../../../src/errors.js';
import { parseDefinition } from '../../../src/pipeline/load.js';
import { validate } from '../../../src/pipeline/validate.js';
import { dedent, problemsOf, withResources } from './helpers.js';

/**
 * Each row: a definition and every problem it must produce, exactly as printed. In `withResources`
 * rows the body starts on line 4 and is shifted right by 2 columns.
 */
interface Row {
  name: string;
  given: string;
  want: string[];
}

const access: Row[] = [
  {
    name: 'roles must be declared; owner needs an owner field',
    given: dedent(`
      name: t
      version: "1"
      auth:
        roles: [admin, editor]
      resources:
        posts:
          fields: {}
          access:
            list: publc
            create: [editor, writer]
            update: [edtor, owner]
    `),
    want: [
      'api.yaml:9:13  resources.posts.access.list  unknown role "publc" (did you mean "public"?)',
      'api.yaml:10:24  resources.posts.access.create[1]  unknown role "writer" (add it to auth.roles)',
      'api.yaml:11:16  resources.posts.access.update[0]  unknown role "edtor" (did you mean "editor"?)',
      'api.yaml:11:23  resources.posts.access.update[1]  rule "owner" needs resource "posts" to declare its owner field (owner: <field>)',
    ],
  },
  {
    name: 'the admin role must be a role; keywords are not roles; an empty rule',
    given: dedent(`
      name: t
      version: "1"
      auth:
        adminRole: boss
        roles: [admin, owner]
      resources:
        posts:
          fields: {}
          access: { list: [] }
    `),
    want: [
      'api.yaml:5:10  auth.roles  the admin role "boss" must be one of the roles',
      'api.yaml:5:18  auth.roles[1]  "owner" is an access rule keyword, not a role',
      'api.yaml:9:21  resources.posts.access.list  must not be empty',
    ],
  },
  {
    name: 'without roles, only the admin role is known',
    given: dedent(`
      name: t
      version: "1"
      resources:
        posts:
          fields: {}
          access: { list: admin, read: editor }
    `),
    want: ['api.yaml:6:34  resources.posts.access.read  unknown role "editor" (declare it in auth.roles)'],
  },
  {
    name: 'owner in auth.default, relied on by a resource without owner and by a collection action',
    given: dedent(`
      name: t
      version: "1"
      auth:
        default: [owner]
      resources:
        posts:
          owner: authorId
          fields: { authorId: string }
          actions:
            import: { on: collection }
        tags:
          fields: {}
          access: { list: public, read: public, create: admin, update: admin, delete: admin }
        notes:
          fields: {}
    `),
    want: [
      'api.yaml:4:13  auth.default[0]  collection action "import" of "posts" relies on this default, but rule "owner" does not apply to it: there is no record to own',
      'api.yaml:4:13  auth.default[0]  resource "notes" relies on this default, but rule "owner" needs it to declare its owner field (owner: <field>)',
    ],
  },
];

const actions: Row[] = [
  {
    name: 'a method: get action changes nothing, and its query parameters hold no json',
    given: withResources(`
      posts:
        fields:
          status: { type: enum, values: [draft, live] }
        actions:
          peek:
            on: item
            method: get
            when: { status: draft }
            set: { status: live }
            input: { fields: { filter: json, limit: integer } }
          poke: { on: collection, method: put }
    `),
    want: [
      'api.yaml:11:9  resources.posts.actions.peek.when  a method: get action changes nothing to test first: when needs method: post',
      'api.yaml:12:9  resources.posts.actions.peek.set  a method: get action changes nothing: set needs method: post',
      'api.yaml:13:36  resources.posts.actions.peek.input.fields.filter.type  a query parameter cannot hold json: use method: post',
      'api.yaml:14:39  resources.posts.actions.poke.method  unknown value "put" for method (expected "post" or "get")',
    ],
  },
  {
    name: 'update and delete may carry when: fields of their type, a known rule, no other keys',
    given: withResources(`
      posts:
        fields:
          status: { type: enum, values: [draft, published], default: draft }
          secret: { type: string, writeOnly: true }
        access:
          update: { access: [editor], when: { status: [draft, live], stat: draft } }
          delete: { when: { secret: x } }
          read: { access: admin, when: { status: draft } }
      tags:
        fields: {}
        access: { delete: { acess: admin, when: {} } }
    `),
    want: [
      'api.yaml:9:26  resources.posts.access.update.access[0]  unknown role "editor" (declare it in auth.roles)',
      'api.yaml:9:59  resources.posts.access.update.when.status[1]  "live" is not one of "draft" or "published"',
      'api.yaml:9:66  resources.posts.access.update.when.stat  unknown field "stat" of "posts" (did you mean "status"?)',
      'api.yaml:10:25  resources.posts.access.delete.when.secret  "secret" is writeOnly: when cannot test it, since ' +
        'the 409 it answers would reveal its value',
      'api.yaml:11:13  resources.posts.access.read  expected a string or a list, got a map',
      'api.yaml:14:25  resources.tags.access.delete.acess  unknown key "acess" (did you mean "access"?)',
    ],
  },
  {
    name: 'when and set must name fields and hold values of their type',
    given: withResources(`
      posts:
        fields:
          status: { type: enum, values: [draft, published], default: draft, readOnly: true }
          title: string
          publishedAt: { type: datetime, nullable: true, readOnly: true }
          meta: json
        actions:
          publish:
            on: item
            when: { status: [draft, live], state: draft, meta: 1 }
            set: { status: published, title: now, publishedAt: now, views: 1 }
    `),
    want: [
      'api.yaml:13:33  resources.posts.actions.publish.when.status[1]  "live" is not one of "draft" or "published"',
      'api.yaml:13:40  resources.posts.actions.publish.when.state  unknown field "state" of "posts" (did you mean "status"?)',
      'api.yaml:13:54  resources.posts.actions.publish.when.meta  a json field cannot be tested in when',
      'api.yaml:14:42  resources.posts.actions.publish.set.title  now applies only to date and datetime fields; "title" is string',
      'api.yaml:14:65  resources.posts.actions.publish.set.views  unknown field "views" of "posts"',
    ],
  },
  {
    name: 'when cannot test a writeOnly field (its value is never returned); set may write one',
    given: withResources(`
      users:
        fields:
          token: { type: string, writeOnly: true, nullable: true }
          locked: { type: boolean, writeOnly: true, default: false }
          state: { type: enum, values: [new, done], default: new }
        actions:
          finish:
            on: item
            when: { token: [abc], locked: false, state: new }
            set: { token: null, locked: true, state: done }
    `),
    want: [
      'api.yaml:12:17  resources.users.actions.finish.when.token  "token" is writeOnly: when cannot test it, since the 409 it answers would reveal its value',
      'api.yaml:12:31  resources.users.actions.finish.when.locked  "locked" is writeOnly: when cannot test it, since the 409 it answers would reveal its value',
    ],
  },
  {
    name: 'collection actions have no record: no when, no set, no owner; on is required',
    given: withResources(`
      posts:
        owner: authorId
        fields:
          authorId: string
        actions:
          archive:
            on: collection
            access: [owner]
            when: { authorId: x }
            set: { authorId: y }
          preview:
            access: public
          bulk:
            on: everything
    `),
    want: [
      'api.yaml:11:18  resources.posts.actions.archive.access[0]  rule "owner" does not apply to collection action "archive" of "posts": there is no record to own',
      'api.yaml:12:9  resources.posts.actions.archive.when  when needs on: item: a collection action has no stored record to test',
      'api.yaml:13:9  resources.posts.actions.archive.set  set needs on: item: a collection action has no stored record to change',
      'api.yaml:15:9  resources.posts.actions.preview.on  missing required key "on"',
      'api.yaml:17:13  resources.posts.actions.bulk.on  unknown value "everything" for on (expected "item" or "collection")',
    ],
  },
  {
    name: "actions cannot take the names of the resource's own operations and store methods",
    given: withResources(`
      posts:
        fields:
          done: boolean
        actions:
          update: { on: item, set: { done: true } }
          get: { on: collection }
          publish: { on: item, set: { done: true } }
          delete-reaching: { on: item, set: { done: true } }
          write: { on: collection }
          record-action: { on: collection }
    `),
    want: [
      'api.yaml:8:7  resources.posts.actions.update  "update" is a name the generated code uses for the resource itself: choose another',
      'api.yaml:9:7  resources.posts.actions.get  "get" is a name the generated code uses for the resource itself: choose another',
      'api.yaml:11:7  resources.posts.actions.delete-reaching  "delete-reaching" is a name the generated code uses for the resource itself: choose another',
      'api.yaml:12:7  resources.posts.actions.write  "write" is a name the generated code uses for the resource itself: choose another',
      'api.yaml:13:7  resources.posts.actions.record-action  "record-action" is a name the generated code uses for the resource itself: choose another',
    ],
  },
  {
    name: 'input fields: field rules, minus the storage options',
    given: withResources(`
      posts:
        fields: {}
        actions:
          import:
            on: collection
            input:
              fields:
                items: { type: json, required: true, unique: true }
                new: string
                count: { type: integr }
    `),
    want: [
      'api.yaml:11:50  resources.posts.actions.import.input.fields.items.unique  option unique does not apply to action input fields',
      'api.yaml:12:13  resources.posts.actions.import.input.fields.new  "new" is a reserved word',
      'api.yaml:13:28  resources.posts.actions.import.input.fields.count.type  unknown type "integr" (did you mean "integer"?)',
    ],
  },
];

describe.each([
  ['access', access],
  ['actions', actions],
])('validate: %s', (_, rows) => {
  it.each(rows)('$name', ({ given, want }) => {
    expect(problemsOf(given)).toEqual(want);
  });
});

describe('validate: valid definitions', () => {
  it.each([
    {
      name: 'action names may be reserved words; owner may be id; roles default to the admin role',
      given: withResources(`
        users:
          owner: id
          fields: { name: string }
          access: { update: [owner, admin] }
          actions:
            import: { on: collection, access: admin }
            delete-all: { on: collection }
      `),
    },
    {
      name: 'a nullable field with a non-null default, a null default on a nullable field',
      given: withResources(`
        posts:
          fields:
            rating: { type: number, nullable: true, default: 2.5 }
            note: { type: string, nullable: true, default: null }
      `),
    },
    {
      name: 'a JSON definition',
      given: '{ "name": "t", "version": "1", "resources": { "posts": { "fields": { "title": "string" } } } }',
    },
  ])('$name', ({ given }) => {
    expect(problemsOf(given)).toEqual([]);
  });
});

describe('validate: reporting', () => {
  it('throws one DefinitionError carrying every problem, sorted by line then column', () => {
    const loaded = parseDefinition(
      'api.yaml',
      dedent(`
        name: t
        version: "1"
        resources:
          posts:
            fields:
              b: { type: strng }
              a: { type: integer, min: 3, max: 1, requried: true }
      `),
    );
    let caught: unknown;
    try {
      validate(loaded);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DefinitionError);
    const problems = caught instanceof DefinitionError ? caught.problems : [];
    expect(problems.map((p) => [p.line, p.column, p.path])).toEqual([
      [6, 18, 'resources.posts.fields.b.type'],
      [7, 40, 'resources.posts.fields.a.max'],
      [7, 43, 'resources.posts.fields.a.requried'],
    ]);
    expect(caught instanceof DefinitionError && caught.exitCode).toBe(1);
  });

  it('reports positions in JSON files too', () => {
    const json =
      '{\n  "name": "t",\n  "version": "1",\n  "resources": {\n    "posts": { "fields": { "title": "strng" } }\n  }\n}\n';
    expect(problemsOf(json, 'api.json')).toEqual([
      'api.json:5:37  resources.posts.fields.title  unknown type "strng" (did you mean "string"?)',
    ]);
  });
});
