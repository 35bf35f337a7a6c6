import { describe, expect, it } from 'vitest';
import { problemsOf, withResources } from './helpers.js';

/**
 * Each row: a definition and every problem it must produce, exactly as printed. In `withResources`
 * rows the body starts on line 4 and is shifted right by 2 columns.
 */
interface Row {
  name: string;
  given: string;
  want: string[];
}

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
    name: 'index: trigram is for the string and text fields a listing filters by contains',
    given: withResources(`
      posts:
        fields:
          a: { type: string, index: trigram }
          b: { type: text, index: trigram }
          c: { type: integer, index: trigram }
          d: { type: string, writeOnly: true, index: trigram }
          e: { type: string, index: btree }
    `),
    want: [
      'api.yaml:8:34  resources.posts.fields.c.index  index: trigram serves contains, which only string and text fields have (this is integer)',
      'api.yaml:9:50  resources.posts.fields.d.index  a writeOnly field cannot be filtered: index: trigram would serve nothing',
      // a string is trigram; true and false are the other values
      'api.yaml:10:33  resources.posts.fields.e.index  unknown value "btree" for index (expected "trigram")',
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
    name: 'a value holding a lone UTF-16 surrogate is refused, as the server refuses it in bodies',
    given: withResources(`
      posts:
        fields:
          a: { type: string, default: "x\\ud800y" }
          b: { type: json, default: { k: ["\\udfff"] } }
          c: { type: string, default: "\\ud83d\\ude00" }
        actions:
          tag:
            on: item
            when: { a: "\\udc00" }
            set: { b: { "\\ud800": 1 } }
    `),
    want: [
      'api.yaml:6:35  resources.posts.fields.a.default  "x\\ud800y" holds a lone UTF-16 surrogate (\\uD800-\\uDFFF without its pair), which a database cannot store as text',
      'api.yaml:7:33  resources.posts.fields.b.default  a map holds a lone UTF-16 surrogate (\\uD800-\\uDFFF without its pair), which a database cannot store as text',
      'api.yaml:12:20  resources.posts.actions.tag.when.a  "\\udc00" holds a lone UTF-16 surrogate (\\uD800-\\uDFFF without its pair), which a database cannot store as text',
      'api.yaml:13:19  resources.posts.actions.tag.set.b  a map holds a lone UTF-16 surrogate (\\uD800-\\uDFFF without its pair), which a database cannot store as text',
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
          # read-only without a default: the owner it was meant to be; the misspelt owner is its one problem
          authorId: { type: string, readOnly: true }
          # another read-only field without one is told so still
          rank: { type: integer, readOnly: true }
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
      'api.yaml:10:30  resources.posts.fields.rank.readOnly  a readOnly field needs a default or nullable: true, since nothing can set it when a record is created',
      'api.yaml:12:12  resources.tags.owner  the owner field must be of type string, uuid or ref; "count" is integer',
    ],
  },
  {
    name: 'computed fields: neither stored nor sent, no ref, no owner, nothing that tests or writes them',
    given: withResources(`
      items:
        owner: [ownerId, score]
        fields:
          ownerId: string
          score: { type: number, computed: true, required: true, default: 1, index: true }
          otherId: { type: ref, to: items, computed: true }
          total: { type: integer, computed: true }
        unique: [[ownerId, total]]
        actions:
          bump: { on: item, when: { total: 1 }, set: { total: 2 } }
          ping: { on: collection, input: { fields: { note: { type: string, computed: true } } } }
    `),
    want: [
      'api.yaml:5:22  resources.items.owner[1]  "score" is computed: an owner field must be stored',
      ...['required:8:46', 'default:8:62', 'index:8:74'].map((at) => {
        const [option, line, col] = at.split(':');
        return `api.yaml:${line}:${col}  resources.items.fields.score.${option}  option ${option} does not apply to a computed field: it is never stored or sent`;
      }),
      'api.yaml:9:40  resources.items.fields.otherId.computed  a ref cannot be computed: its value must be a stored id the database checks',
      'api.yaml:11:24  resources.items.unique[0][1]  "total" is computed: a key compares stored values',
      'api.yaml:13:33  resources.items.actions.bump.when.total  "total" is computed: when tests stored values',
      'api.yaml:13:52  resources.items.actions.bump.set.total  "total" is computed: set writes stored values',
      'api.yaml:14:72  resources.items.actions.ping.input.fields.note.computed  option computed does not apply to action input fields',
    ],
  },
  {
    name: 'a writeOnly field takes no part in a unique key: the 409 would tell whether another record holds the value',
    given: withResources(`
      customers:
        fields:
          ssn: { type: string, writeOnly: true, unique: true }
          pin: { type: string, writeOnly: true }
          email: { type: string, unique: true }
          branch: string
        unique: [[branch, pin], [branch, email]]
    `),
    want: [
      'api.yaml:6:45  resources.customers.fields.ssn.unique  "ssn" is writeOnly: it cannot be unique, since the 409 a taken value answers would tell whether another record holds it',
      'api.yaml:10:23  resources.customers.unique[0][1]  "pin" is writeOnly: a unique key cannot hold it, since the 409 a taken value answers would tell whether another record holds it',
    ],
  },
  {
    name: 'renamedFrom of resources: a free previous name, claimed once',
    given: withResources(`
      physicians:
        renamedFrom: doctors
        fields: {}
      medics:
        renamedFrom: doctors
        fields: {}
      nurses:
        renamedFrom: nurses
        fields: {}
      carers:
        renamedFrom: physicians
        fields: {}
      aides:
        renamedFrom: Aides_2
        fields: {}
    `),
    want: [
      'api.yaml:8:18  resources.medics.renamedFrom  "physicians" is already renamed from "doctors"',
      'api.yaml:11:18  resources.nurses.renamedFrom  "nurses" is the resource\'s own name',
      'api.yaml:14:18  resources.carers.renamedFrom  "physicians" is the name of a current resource ("physicians")',
      'api.yaml:17:18  resources.aides.renamedFrom  "Aides_2" is not a valid renamedFrom: a resource name: lowercase ' +
        'letters, digits and -, starting with a letter',
    ],
  },
  {
    name: 'several owners: fields of one kind of value, no id, no duplicate, a readOnly one first',
    given: withResources(`
      people:
        id: integer
        fields: {}
      visits:
        owner: [patientId, doctorName, id, patientId, pateintId]
        fields:
          patientId: { type: ref, to: people }
          doctorName: string
      notes:
        owner: [editorId, createdBy]
        fields:
          editorId: string
          createdBy: { type: string, readOnly: true, nullable: true }
      empty:
        owner: []
        fields: {}
    `),
    want: [
      'api.yaml:8:24  resources.visits.owner[1]  owner fields hold one token subject, so they must all hold the same ' +
        'kind of value: "doctorName" holds text, "patientId" integer ids',
      'api.yaml:8:36  resources.visits.owner[2]  id cannot be one of several owner fields: name fields only',
      'api.yaml:8:40  resources.visits.owner[3]  "patientId" is listed twice',
      'api.yaml:8:51  resources.visits.owner[4]  owner "pateintId" is not a field of "visits" (did you mean "patientId"?)',
      'api.yaml:13:23  resources.notes.owner[1]  "createdBy" is readOnly: the server sets it to the caller on create, ' +
        'so it must be the first owner field',
      'api.yaml:18:12  resources.empty.owner  must not be empty',
    ],
  },
];

describe.each([['fields', fields]])('validate: %s', (_, rows) => {
  it.each(rows)('$name', ({ given, want }) => {
    expect(problemsOf(given)).toEqual(want);
  });
});
