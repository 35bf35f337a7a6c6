import { describe, expect, it } from 'vitest';
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
    name: 'a bad resource, field or action name does not hide the problems of what it holds',
    given: withResources(`
      Posts:
        fields:
          title: { type: strng }
          Kind: { type: enum, values: [a, b], default: c }
        actions:
          Go: { on: item, set: { nope: 1 } }
    `),
    want: [
      'api.yaml:4:3  resources.Posts  "Posts" is not a valid resource name: use lower-case letters, digits and \'-\', starting with a letter',
      'api.yaml:6:22  resources.Posts.fields.title.type  unknown type "strng" (did you mean "string"?)',
      'api.yaml:7:7  resources.Posts.fields.Kind  "Kind" is not a valid field name: use camelCase: a lower-case letter, then letters and digits',
      'api.yaml:7:52  resources.Posts.fields.Kind.default  "c" is not one of "a" or "b" (did you mean "a"?)',
      'api.yaml:9:7  resources.Posts.actions.Go  "Go" is not a valid action name: use lower-case letters, digits and \'-\', starting with a letter',
      'api.yaml:9:30  resources.Posts.actions.Go.set.nope  unknown field "nope" of "Posts"',
    ],
  },
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
    want: [
      'api.yaml:6:30  resources.posts.fields.title.requried  unknown option "requried" (did you mean "required"?)',
    ],
  },
  {
    name: 'a text with commas, unquoted in { … }: its pieces are keys (found by a newcomer)',
    given: withResources(`
      posts:
        fields:
          title: { type: string, description: Café, crème et thé }
    `),
    want: [
      'api.yaml:6:49  resources.posts.fields.title.crème et thé  unknown option "crème et thé" (a comma in { … } ends a value: put a text with commas in quotes)',
    ],
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
    name: 'cors: origins, credentials with "*", maxAge, unknown keys',
    given: dedent(`
      name: t
      version: "1"
      cors:
        origins: ["https://app.example.com/", "app.example.com", "https://a.example.com", "https://a.example.com", "https://A.example.com"]
        maxAge: ten minutes
        credential: true
      resources:
        posts:
          fields: {}
    `),
    want: [
      'api.yaml:4:13  cors.origins[0]  "https://app.example.com/" is not a valid origin: use http(s)://host[:port] in lower case, like https://app.example.com (no path, no trailing /)',
      'api.yaml:4:41  cors.origins[1]  "app.example.com" is not a valid origin: use http(s)://host[:port] in lower case, like https://app.example.com (no path, no trailing /)',
      'api.yaml:4:85  cors.origins[3]  "https://a.example.com" is listed twice',
      'api.yaml:4:110  cors.origins[4]  "https://A.example.com" is not a valid origin: use http(s)://host[:port] in lower case, like https://app.example.com (no path, no trailing /)',
      'api.yaml:5:11  cors.maxAge  "ten minutes" is not a valid duration: use a duration like 30s, 10m or 2h',
      'api.yaml:6:3  cors.credential  unknown key "credential" (did you mean "credentials"?)',
    ],
  },
  {
    name: 'problems: a base that is not an http(s) URL; unknown keys; a resource at its pages',
    given: dedent(`
      name: t
      version: "1"
      problems:
        base: errors.example.com
        page: true
      resources:
        problems:
          fields: {}
    `),
    want: [
      'api.yaml:4:9  problems.base  "errors.example.com" is not a valid base: use an http or https URL with no query or fragment, e.g. https://example.com/problems',
      'api.yaml:5:3  problems.page  unknown key "page" (did you mean "base"?)',
      `api.yaml:7:3  resources.problems  "problems" collides with the server's own route /problems`,
    ],
  },
  {
    name: 'problems: a base with a trailing /',
    given: dedent(`
      name: t
      version: "1"
      problems: { base: "https://example.com/problems/" }
      resources:
        posts:
          fields: {}
    `),
    want: ['api.yaml:3:19  problems.base  leave out the trailing /, e.g. https://example.com/problems'],
  },
  {
    name: 'problems: a base with a query',
    given: dedent(`
      name: t
      version: "1"
      problems: { base: "https://example.com/p?x=1" }
      resources:
        posts:
          fields: {}
    `),
    want: [
      'api.yaml:3:19  problems.base  "https://example.com/p?x=1" is not a valid base: use an http or https URL with no query or fragment, e.g. https://example.com/problems',
    ],
  },
  {
    name: 'events: durations, attempts, unknown keys, resources named like its routes',
    given: dedent(`
      name: t
      version: "1"
      events:
        retention: a week
        webhook: true
        retry: { attempts: 0, firstDelay: soon, backoff: 2 }
      resources:
        events:
          fields: {}
        webhooks:
          fields: {}
    `),
    want: [
      'api.yaml:4:14  events.retention  "a week" is not a valid duration: use a duration like 12h, 7d or 30d',
      'api.yaml:5:3  events.webhook  unknown key "webhook" (did you mean "webhooks"?)',
      'api.yaml:6:22  events.retry.attempts  must be at least 1 (got 0)',
      'api.yaml:6:37  events.retry.firstDelay  "soon" is not a valid duration: use a duration like 500ms, 30s or 5m',
      'api.yaml:6:43  events.retry.backoff  unknown key "backoff"',
      'api.yaml:8:3  resources.events  "events" collides with the route /events of `events`: choose another name',
      'api.yaml:10:3  resources.webhooks  "webhooks" collides with the route /webhooks of `events`: choose another name',
    ],
  },
  {
    name: 'cors: credentials cannot go with any origin',
    given: dedent(`
      name: t
      version: "1"
      cors: { origins: "*", credentials: true }
      resources:
        posts:
          fields: {}
    `),
    want: ['api.yaml:3:36  cors.credentials  browsers refuse credentials with origins "*": list the origins instead'],
  },
  {
    name: 'deprecated: dates, the sunset after since, the link, unknown keys, a field flag',
    given: withResources(`
      posts:
        deprecated: { since: 2026-02-30, sunset: 2025-01-01, link: ftp://x }
        fields:
          score: { type: integer, deprecated: yes }
        actions:
          boost: { on: item, deprecated: { since: 2026-01-01, sunst: 2027-01-01 } }
      notes:
        deprecated: { since: 2026-01-01, sunset: 2025-01-01 }
        fields: {}
    `),
    want: [
      'api.yaml:5:26  resources.posts.deprecated.since  "2026-02-30" is not a real date: use YYYY-MM-DD, like 2026-11-01',
      'api.yaml:5:64  resources.posts.deprecated.link  "ftp://x" is not an http or https URL',
      'api.yaml:7:43  resources.posts.fields.score.deprecated  expected a boolean, got "yes"',
      'api.yaml:9:59  resources.posts.actions.boost.deprecated.sunst  unknown key "sunst" (did you mean "sunset"?)',
      'api.yaml:11:46  resources.notes.deprecated.sunset  the sunset must come after since (2026-01-01)',
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
    name: 'values of the wrong kind',
    given: dedent(`
      name: t
      version: "1"
      auth:
        default: 3
      resources:
        posts:
          fields:
          access: { read: [public, 5], list: "3rd" }
          actions:
            go: { on: 3 }
            stop: { on: item, when: { x: { a: 1 } } }
        tags: []
    `),
    want: [
      'api.yaml:4:12  auth.default  expected a string or a list, got 3',
      'api.yaml:7:5  resources.posts.fields  expected a map, got nothing',
      'api.yaml:8:30  resources.posts.access.read[1]  expected a string, got a number (put it in quotes)',
      'api.yaml:8:40  resources.posts.access.list  "3rd" is not a valid access rule: use public, authenticated, owner or a role name',
      'api.yaml:10:17  resources.posts.actions.go.on  expected "item" or "collection", got 3',
      'api.yaml:11:36  resources.posts.actions.stop.when.x  expected a string, a number, a boolean, null or a list, got a map',
      'api.yaml:12:9  resources.tags  expected a map, got a list',
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
      errors: { fields: {} }
    `),
    want: [
      'api.yaml:4:3  resources.import  "import" is a reserved word',
      `api.yaml:5:3  resources.healthz  "healthz" collides with the server's own route /healthz`,
      `api.yaml:6:3  resources.docs  "docs" collides with the server's own route /docs`,
      'api.yaml:8:3  resources.post  resource "post" collides with resource "posts" (both have the type name Post)',
      'api.yaml:10:3  resources.blogposts  resource "blogposts" collides with resource "blog-posts" (they differ only in case or "-")',
      'api.yaml:11:3  resources.errors  "errors" would be the type Error, which the generated code needs for itself: choose another name',
    ],
  },
  {
    // zod's records drop a __proto__ key without an issue (it sets the prototype): never lost in silence
    name: '__proto__ as a resource, a field, an action or a key of a JSON default',
    given: withResources(`
      __proto__: { fields: {} }
      posts:
        fields:
          __proto__: string
          meta: { type: json, default: { a: [{ __proto__: 1 }], __proto__: { x: 1 } } }
        actions:
          __proto__: { on: item }
    `),
    want: [
      `api.yaml:4:3  resources.__proto__  "__proto__" cannot be a name or a key: JavaScript reads it as an object's prototype`,
      `api.yaml:7:7  resources.posts.fields.__proto__  "__proto__" cannot be a name or a key: JavaScript reads it as an object's prototype`,
      `api.yaml:8:44  resources.posts.fields.meta.default.a[0].__proto__  "__proto__" cannot be a name or a key: JavaScript reads it as an object's prototype`,
      `api.yaml:8:61  resources.posts.fields.meta.default.__proto__  "__proto__" cannot be a name or a key: JavaScript reads it as an object's prototype`,
      `api.yaml:10:7  resources.posts.actions.__proto__  "__proto__" cannot be a name or a key: JavaScript reads it as an object's prototype`,
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
      'api.yaml:9:7  resources.posts.actions.markdone  action "markdone" collides with action "mark-done" (they differ only in case or "-")',
    ],
  },
];

describe.each([
  ['structure', structure],
  ['names', names],
])('validate: %s', (_, rows) => {
  it.each(rows)('$name', ({ given, want }) => {
    expect(problemsOf(given)).toEqual(want);
  });
});
