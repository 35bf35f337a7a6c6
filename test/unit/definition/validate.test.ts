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

const structure: Row[] = [
  {
    name: 'unknown type in shorthand',
    given: withResources(`
      posts:
        fields:
          title: strng
    `),
    want: ['api.yaml:6:14  resources.posts.fields.title  unknown type "strng" (did you mean "string"?)'],
  },
  {
    name: 'unknown type in a map, at the value of type (the SPEC example)',
    given: withResources(`
      posts:
        fields:
          title: { type: strng, required: true }
    `),
    want: ['api.yaml:6:22  resources.posts.fields.title.type  unknown type "strng" (did you mean "string"?)'],
  },
  {
    name: 'unknown type without a close match lists the types',
    given: withResources(`
      posts:
        fields:
          title: { type: blob }
    `),
    want: [
      'api.yaml:6:22  resources.posts.fields.title.type  unknown type "blob" (expected "string", "text", "integer", "number", "boolean", "date", "datetime", "uuid", "enum", "json" or "ref")',
    ],
  },
  {
    name: 'misspelled option, at its key',
    given: withResources(`
      posts:
        fields:
          title: { type: string, requried: true }
    `),
    want: ['api.yaml:6:30  resources.posts.fields.title.requried  unknown option "requried" (did you mean "required"?)'],
  },
  {
    name: 'option of another type',
    given: withResources(`
      posts:
        fields:
          views: { type: integer, minLength: 3, pattern: x }
    `),
    want: [
      'api.yaml:6:31  resources.posts.fields.views.minLength  option minLength does not apply to type integer',
      'api.yaml:6:45  resources.posts.fields.views.pattern  option pattern does not apply to type integer',
    ],
  },
  {
    name: 'enum and ref cannot be shorthands',
    given: withResources(`
      posts:
        fields:
          status: enum
          authorId: ref
    `),
    want: [
      'api.yaml:6:15  resources.posts.fields.status  type enum needs its values: write { type: enum, values: [a, b] }',
      'api.yaml:7:17  resources.posts.fields.authorId  type ref needs its target: write { type: ref, to: <resource> }',
    ],
  },
  {
    name: 'missing type, at the map; a field that is neither name nor map',
    given: withResources(`
      posts:
        fields:
          title:
            required: true
          views: 3
    `),
    want: [
      'api.yaml:7:9  resources.posts.fields.title.type  missing required key "type"',
      'api.yaml:8:14  resources.posts.fields.views  expected a type name or a map with "type", got 3',
    ],
  },
  {
    name: 'enum values: required, not empty, unique',
    given: withResources(`
      posts:
        fields:
          a: { type: enum }
          b: { type: enum, values: [] }
          c: { type: enum, values: [x, y, x] }
    `),
    want: [
      'api.yaml:6:10  resources.posts.fields.a.values  missing required key "values"',
      'api.yaml:7:32  resources.posts.fields.b.values  must not be empty',
      'api.yaml:8:39  resources.posts.fields.c.values[2]  "x" is listed twice',
    ],
  },
  {
    name: 'a pattern that does not compile',
    given: withResources(`
      posts:
        fields:
          code: { type: string, pattern: "[a-" }
    `),
    want: [
      'api.yaml:6:38  resources.posts.fields.code.pattern  pattern is not a valid regular expression: Invalid regular expression: /[a-/u: Unterminated character class',
    ],
  },
  {
    name: 'unknown keys at the top level and in a resource; the implied missing key is not repeated',
    given: dedent(`
      name: t
      version: "1"
      prefx: /api
      resources:
        posts:
          fileds: { title: string }
    `),
    want: [
      'api.yaml:3:1  prefx  unknown key "prefx" (did you mean "prefix"?)',
      'api.yaml:6:5  resources.posts.fileds  unknown key "fileds" (did you mean "fields"?)',
    ],
  },
  {
    name: 'missing top-level keys, at the first key of the map',
    given: dedent(`
      title: t
      resources:
        posts:
          fields: {}
    `),
    want: ['api.yaml:1:1  name  missing required key "name"', 'api.yaml:1:1  version  missing required key "version"'],
  },
  {
    name: 'an empty file',
    given: '',
    want: ['api.yaml:1:1  (root)  the file is empty; a definition is a map with name, version and resources'],
  },
  {
    name: 'name, version, prefix, resources',
    given: dedent(`
      name: My Blog
      version: 1.0
      prefix: /api/
      resources: {}
    `),
    want: [
      `api.yaml:1:7  name  "My Blog" is not a valid name: use lower-case letters, digits and '-', starting with a letter`,
      'api.yaml:2:10  version  expected a string, got a number (put it in quotes)',
      'api.yaml:3:9  prefix  "/api/" is not a valid prefix: start with / and do not end with /, e.g. /api/v1',
      'api.yaml:4:12  resources  define at least one resource',
    ],
  },
  {
    name: 'limits',
    given: dedent(`
      name: t
      version: "1"
      limits:
        pageSize: { default: 200, max: 100 }
        bodySize: 1 megabyte
        rateLimit: { max: 0, window: 1 minute }
      resources:
        posts:
          fields: {}
    `),
    want: [
      'api.yaml:4:24  limits.pageSize.default  default (200) is more than max (100)',
      'api.yaml:5:13  limits.bodySize  "1 megabyte" is not a valid size: use a number of bytes or a size like 512kb or 1mb',
      'api.yaml:6:21  limits.rateLimit.max  must be at least 1 (got 0)',
      'api.yaml:6:32  limits.rateLimit.window  "1 minute" is not a valid duration: use a duration like 500ms, 30s, 1m, 1h or 1d',
    ],
  },
  {
    name: 'bad names of resources, fields and actions, at their keys',
    given: withResources(`
      Posts:
        fields: {}
      tags:
        fields:
          Title: string
          first-name: string
        actions:
          Archive: { on: item }
    `),
    want: [
      `api.yaml:4:3  resources.Posts  "Posts" is not a valid resource name: use lower-case letters, digits and '-', starting with a letter`,
      'api.yaml:8:7  resources.tags.fields.Title  "Title" is not a valid field name: use camelCase: a lower-case letter, then letters and digits',
      'api.yaml:9:7  resources.tags.fields.first-name  "first-name" is not a valid field name: use camelCase: a lower-case letter, then letters and digits',
      `api.yaml:11:7  resources.tags.actions.Archive  "Archive" is not a valid action name: use lower-case letters, digits and '-', starting with a letter`,
    ],
  },
  {
    name: 'operations and id kinds',
    given: withResources(`
      posts:
        id: int
        operations: [list, lst]
        fields: {}
    `),
    want: [
      'api.yaml:5:9  resources.posts.id  unknown id kind "int" (did you mean "integer"?)',
      'api.yaml:6:24  resources.posts.operations[1]  unknown operation "lst" (did you mean "list"?)',
    ],
  },
];

const names: Row[] = [
  {
    name: 'reserved words, system fields, names that collide after case conversion',
    given: withResources(`
      posts:
        fields:
          class: string
          authorId: string
          authorID: string
          userid: string
          userId: string
          createdAt: datetime
          updatedat: datetime
          version: integer
    `),
    want: [
      'api.yaml:6:7  resources.posts.fields.class  "class" is a reserved word',
      'api.yaml:8:7  resources.posts.fields.authorID  field "authorID" collides with field "authorId" (both become author_id)',
      'api.yaml:10:7  resources.posts.fields.userId  field "userId" collides with field "userid" (they differ only in case)',
      'api.yaml:11:7  resources.posts.fields.createdAt  "createdAt" is a system field: every record has it, do not declare it',
      'api.yaml:12:7  resources.posts.fields.updatedat  "updatedat" collides with the system field "updatedAt"',
      'api.yaml:13:7  resources.posts.fields.version  "version" is a system field: every record has it, do not declare it',
    ],
  },
  {
    name: 'resource names: reserved, server routes, same type name, same words',
    given: withResources(`
      import: { fields: {} }
      healthz: { fields: {} }
      docs: { fields: {} }
      posts: { fields: {} }
      post: { fields: {} }
      blog-posts: { fields: {} }
      blogposts: { fields: {} }
    `),
    want: [
      'api.yaml:4:3  resources.import  "import" is a reserved word',
      `api.yaml:5:3  resources.healthz  "healthz" collides with the server's own route /healthz`,
      `api.yaml:6:3  resources.docs  "docs" collides with the server's own route /docs`,
      'api.yaml:8:3  resources.post  resource "post" collides with resource "posts" (both have the type name Post)',
      'api.yaml:10:3  resources.blogposts  resource "blogposts" collides with resource "blog-posts" (they differ only in case or "-")',
    ],
  },
  {
    name: 'action names are not reserved, but must not collide',
    given: withResources(`
      posts:
        fields: {}
        actions:
          import: { on: collection }
          mark-done: { on: item }
          markdone: { on: collection }
    `),
    want: [
      'api.yaml:9:7  resources.posts.actions.markdone  action "markdone" collides with action "mark-done" (they differ only in case)',
    ],
  },
];

const fields: Row[] = [
  {
    name: 'contradictory options and ranges',
    given: withResources(`
      posts:
        fields:
          a: { type: string, required: true, readOnly: true, default: x }
          b: { type: string, readOnly: true, writeOnly: true, nullable: true }
          c: { type: integer, min: 5, max: 1 }
          d: { type: text, minLength: 10, maxLength: 2 }
          e: { type: enum, values: [x, y], readOnly: true }
    `),
    want: [
      'api.yaml:6:42  resources.posts.fields.a.readOnly  a field cannot be both required and readOnly: clients cannot send it',
      'api.yaml:7:42  resources.posts.fields.b.writeOnly  a field cannot be both readOnly and writeOnly',
      'api.yaml:8:40  resources.posts.fields.c.max  max (1) is less than min (5)',
      'api.yaml:9:50  resources.posts.fields.d.maxLength  maxLength (2) is less than minLength (10)',
      'api.yaml:10:40  resources.posts.fields.e.readOnly  a readOnly field needs a default or nullable: true, since nothing can set it when a record is created',
    ],
  },
  {
    name: 'defaults must fit the type and the constraints',
    given: withResources(`
      posts:
        fields:
          a: { type: enum, values: [draft, live], default: dratf }
          b: { type: integer, min: 0, default: -1 }
          c: { type: string, maxLength: 2, default: abc }
          d: { type: string, pattern: "^[A-Z]+$", default: abc }
          e: { type: string, format: email, default: nobody }
          f: { type: boolean, default: null }
          g: { type: date, default: 2024-02-30 }
          h: { type: integer, default: "3" }
          i: { type: number, nullable: true, default: 2.5 }
    `),
    want: [
      'api.yaml:6:56  resources.posts.fields.a.default  "dratf" is not one of "draft" or "live" (did you mean "draft"?)',
      'api.yaml:7:44  resources.posts.fields.b.default  -1 is less than min 0',
      'api.yaml:8:49  resources.posts.fields.c.default  "abc" is longer than maxLength 2',
      'api.yaml:9:56  resources.posts.fields.d.default  "abc" does not match pattern ^[A-Z]+$',
      'api.yaml:10:50  resources.posts.fields.e.default  "nobody" is not an email address',
      'api.yaml:11:36  resources.posts.fields.f.default  null needs nullable: true',
      'api.yaml:12:33  resources.posts.fields.g.default  "2024-02-30" is not a valid default: use a date written YYYY-MM-DD',
      'api.yaml:13:36  resources.posts.fields.h.default  expected an integer, got "3"',
    ],
  },
  {
    name: 'refs: unknown target with or without a close name, setNull needs nullable, missing to',
    given: withResources(`
      users: { fields: {} }
      posts:
        fields:
          authorId: { type: ref, to: user }
          editorId: { type: ref, to: editors, onDelete: setNull }
          reviewerId: { type: ref }
    `),
    want: [
      'api.yaml:7:34  resources.posts.fields.authorId.to  unknown resource "user" (did you mean "users"?)',
      'api.yaml:8:34  resources.posts.fields.editorId.to  unknown resource "editors" (expected "users" or "posts")',
      'api.yaml:8:53  resources.posts.fields.editorId.onDelete  onDelete setNull needs nullable: true',
      'api.yaml:9:19  resources.posts.fields.reviewerId.to  missing required key "to"',
    ],
  },
  {
    name: 'renamedFrom',
    given: withResources(`
      posts:
        fields:
          title: { type: string, renamedFrom: title }
          heading: { type: string, renamedFrom: title }
          name: { type: string, renamedFrom: label }
          label2: { type: string, renamedFrom: label }
          other: { type: string, renamedFrom: createdAt }
    `),
    want: [
      `api.yaml:6:43  resources.posts.fields.title.renamedFrom  "title" is the field's own name`,
      'api.yaml:7:45  resources.posts.fields.heading.renamedFrom  "title" is the name of another current field',
      'api.yaml:9:44  resources.posts.fields.label2.renamedFrom  "name" is already renamed from "label"',
      'api.yaml:10:43  resources.posts.fields.other.renamedFrom  "createdAt" is a system field',
    ],
  },
  {
    name: 'owner: must be a field, or id, of type string, uuid or ref',
    given: withResources(`
      posts:
        owner: author
        fields:
          authorId: string
      tags:
        owner: count
        fields:
          count: integer
      users:
        owner: id
        fields: {}
    `),
    want: [
      'api.yaml:5:12  resources.posts.owner  owner "author" is not a field of "posts" (did you mean "authorId"?)',
      'api.yaml:9:12  resources.tags.owner  the owner field must be of type string, uuid or ref; "count" is integer',
    ],
  },
];

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
  ['structure', structure],
  ['names', names],
  ['fields', fields],
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
    const json = '{\n  "name": "t",\n  "version": "1",\n  "resources": {\n    "posts": { "fields": { "title": "strng" } }\n  }\n}\n';
    expect(problemsOf(json, 'api.json')).toEqual([
      'api.json:5:37  resources.posts.fields.title  unknown type "strng" (did you mean "string"?)',
    ]);
  });
});
