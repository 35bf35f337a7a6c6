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

const relations: Row[] = [
  {
    name: 'the example of the spec: authors, books with an author and an editor, tags, book-tags',
    given: withResources(`
      authors:
        fields: { fullName: { type: string, required: true }, country: string }
      books:
        fields:
          title: { type: string, required: true }
          authorId: { type: ref, to: authors, required: true }
          editorId: { type: ref, to: authors, nullable: true, onDelete: setNull, as: editor, inverse: editedBooks }
      tags:
        fields: { name: { type: string, required: true, unique: true } }
      book-tags:
        fields:
          bookId: { type: ref, to: books, required: true, onDelete: cascade }
          tagId: { type: ref, to: tags, required: true, onDelete: cascade }
    `),
    want: [],
  },
  {
    name: 'a self-reference: parent on categories, and its inverse categories',
    given: withResources(`
      categories:
        fields:
          name: string
          parentId: { type: ref, to: categories, nullable: true }
    `),
    want: [],
  },
  {
    name: 'a required self-reference: no first record could be created',
    given: withResources(`
      categories:
        fields:
          name: string
          parentId: { type: ref, to: categories, required: true }
          rootId: { type: ref, to: categories, required: true, nullable: true, inverse: rooted }
    `),
    want: [
      'api.yaml:7:7  resources.categories.fields.parentId  parentId is required and refers to categories itself: the first record would have no record to refer to, so none could be created. Leave out `required` (or add `nullable: true`): a first record then has none',
    ],
  },
  {
    name: 'required refs that come back through other resources; a required ref into the cycle is no part of it',
    given: withResources(`
      departments:
        fields: { headId: { type: ref, to: employees, required: true } }
      employees:
        fields: { departmentId: { type: ref, to: departments, required: true } }
      badges:
        fields: { employeeId: { type: ref, to: employees, required: true } }
    `),
    want: [
      'api.yaml:5:15  resources.departments.fields.headId  headId is required, and the required refs it leads to come back (departments.headId → employees.departmentId → departments): none of these resources could have a first record. Leave out `required` on one of them (or add `nullable: true`)',
      'api.yaml:7:15  resources.employees.fields.departmentId  departmentId is required, and the required refs it leads to come back (employees.departmentId → departments.headId → employees): none of these resources could have a first record. Leave out `required` on one of them (or add `nullable: true`)',
    ],
  },
  {
    name: 'a ref field not ending in Id needs as',
    given: withResources(`
      users: { fields: {} }
      authors: { fields: {} }
      posts:
        fields:
          owner: { type: ref, to: users }
          author: { type: ref, to: authors }
          reviewerID: { type: ref, to: users, inverse: reviewedPosts }
          editor: { type: ref, to: users, as: editedBy, inverse: editedPosts }
    `),
    want: [
      'api.yaml:8:7  resources.posts.fields.owner  a ref field whose name does not end in Id needs `as` to name its relation, e.g. as: user; or rename it ownerId (its relation is then owner)',
      'api.yaml:9:7  resources.posts.fields.author  a ref field whose name does not end in Id needs `as` to name its relation, other than its own name; or rename it authorId (its relation is then author)',
      'api.yaml:10:7  resources.posts.fields.reviewerID  a ref field whose name does not end in Id needs `as` to name its relation, e.g. as: user; or rename it reviewerId (its relation is then reviewer)',
    ],
  },
  {
    name: 'two refs to the same target give the same inverse',
    given: withResources(`
      authors: { fields: {} }
      books:
        fields:
          authorId: { type: ref, to: authors }
          editorId: { type: ref, to: authors }
    `),
    want: [
      `api.yaml:8:7  resources.books.fields.editorId  editorId's inverse "books" on authors clashes with authorId's: give one of them another name with \`inverse:\` (e.g. inverse: editorBooks)`,
    ],
  },
  {
    name: 'a relation clashes with a field, a system field, an action, its own field',
    given: withResources(`
      users: { fields: {} }
      posts:
        fields:
          author: string
          authorId: { type: ref, to: users }
          versionId: { type: ref, to: users, inverse: versionedPosts }
          reviewer: { type: ref, to: users, as: reviewer, inverse: reviewedPosts }
          approverId: { type: ref, to: users, as: approve, inverse: approvedPosts }
        actions:
          approve: { on: item }
    `),
    want: [
      `api.yaml:8:7  resources.posts.fields.authorId  authorId's relation "author" clashes with the field "author": give it another name with \`as:\``,
      `api.yaml:9:7  resources.posts.fields.versionId  versionId's relation "version" clashes with the system field "version": give it another name with \`as:\``,
      `api.yaml:10:41  resources.posts.fields.reviewer.as  reviewer's relation "reviewer" clashes with the field's own name: give it another name with \`as:\``,
      `api.yaml:11:43  resources.posts.fields.approverId.as  approverId's relation "approve" clashes with the action "approve": give it another name with \`as:\``,
    ],
  },
  {
    name: 'an inverse clashes with a field, an action or a relation of its target, ignoring case and separators',
    given: withResources(`
      authors:
        fields:
          posts: integer
          pinnedId: { type: ref, to: pins, as: comments }
        actions:
          mark-read: { on: item }
      posts:
        fields:
          authorId: { type: ref, to: authors }
      comments:
        fields:
          authorId: { type: ref, to: authors }
      pins:
        fields:
          authorId: { type: ref, to: authors, inverse: markRead }
    `),
    want: [
      `api.yaml:12:7  resources.posts.fields.authorId  authorId's inverse "posts" on authors clashes with the field "posts" of authors: give it another name with \`inverse:\` (e.g. inverse: authorPosts)`,
      `api.yaml:15:7  resources.comments.fields.authorId  authorId's inverse "comments" on authors clashes with authors.pinnedId's relation "comments": give one of them another name with \`as:\` or \`inverse:\` (e.g. inverse: authorComments)`,
      `api.yaml:18:43  resources.pins.fields.authorId.inverse  authorId's inverse "markRead" on authors clashes with the action "mark-read" of authors: give it another name with \`inverse:\` (e.g. inverse: authorPins)`,
    ],
  },
  {
    name: 'refs to an unknown resource make no relation; a field broken elsewhere still makes its relations',
    given: withResources(`
      authors: { fields: { title: string } }
      books:
        fields:
          authorId: { type: ref, to: author }
          writerId: { type: ref, to: authors, default: 3, inverse: books }
          coAuthorId: { type: ref, to: authors, colour: red }
    `),
    want: [
      'api.yaml:7:34  resources.books.fields.authorId.to  unknown resource "author" (did you mean "authors"?)',
      'api.yaml:8:52  resources.books.fields.writerId.default  expected a UUID, got 3',
      `api.yaml:9:7  resources.books.fields.coAuthorId  coAuthorId's inverse "books" on authors clashes with writerId's: give one of them another name with \`inverse:\` (e.g. inverse: coAuthorBooks)`,
      'api.yaml:9:45  resources.books.fields.coAuthorId.colour  unknown option "colour"',
    ],
  },
  {
    name: 'every problem is reported at once',
    given: withResources(`
      users:
        fields: { name: string }
      posts:
        fields:
          owner: { type: ref, to: users, inverse: ownedPosts }
          userId: { type: ref, to: users, as: owner }
          reviewerId: { type: ref, to: users }
          editorId: { type: ref, to: users, inverse: Posts }
    `),
    want: [
      'api.yaml:8:7  resources.posts.fields.owner  a ref field whose name does not end in Id needs `as` to name its relation, e.g. as: user; or rename it ownerId (its relation is then owner)',
      `api.yaml:9:39  resources.posts.fields.userId.as  userId's relation "owner" clashes with the field "owner": give it another name with \`as:\``,
      `api.yaml:10:7  resources.posts.fields.reviewerId  reviewerId's inverse "posts" on users clashes with userId's: give one of them another name with \`inverse:\` (e.g. inverse: reviewerPosts)`,
      'api.yaml:11:50  resources.posts.fields.editorId.inverse  "Posts" is not a valid inverse: use camelCase: a lower-case letter, then letters and digits',
    ],
  },
];

const JOIN = `
      books: { fields: { title: string } }
      tags: { fields: { name: string } }`;

const manyToMany: Row[] = [
  {
    name: 'the example of the spec: tags through book-tags, with a unique key',
    given: withResources(`${JOIN}
      authors: { fields: { fullName: string } }
      book-tags:
        fields:
          bookId: { type: ref, to: books, required: true, onDelete: cascade }
          tagId: { type: ref, to: tags, required: true, onDelete: cascade }
        unique: [[bookId, tagId]]
        relations: {}
    `).replace(
      'books: { fields: { title: string } }',
      'books: { fields: { title: string }, relations: { tags: { through: book-tags } } }',
    ),
    want: [],
  },
  {
    name: 'an unknown join resource, and an unknown key, with suggestions',
    given: withResources(`${JOIN}
      book-tags: { fields: { bookId: { type: ref, to: books }, tagId: { type: ref, to: tags } } }
      authors:
        fields: { name: string }
        relations:
          tags: { through: book-tag }
          books: { throught: book-tags }
    `),
    want: [
      'api.yaml:10:24  resources.authors.relations.tags.through  through "book-tag" is not a resource (did you mean "book-tags"?)',
      'api.yaml:11:16  resources.authors.relations.books.throught  unknown key "throught" (did you mean "through"?)',
    ],
  },
  {
    name: 'a join resource with three refs needs via; via names ref fields, the first to this resource',
    given: withResources(`${JOIN}
      users: { fields: { name: string } }
      taggings:
        fields:
          bookId: { type: ref, to: books }
          tagId: { type: ref, to: tags }
          userId: { type: ref, to: users }
      authors:
        fields: { name: string }
        relations:
          tags: { through: taggings }
          books: { through: taggings, via: [userId, bookd] }
          users: { through: taggings, via: [bookId, bookId] }
    `),
    want: [
      'api.yaml:15:24  resources.authors.relations.tags.through  taggings holds no ref to authors: a join resource refers to both sides (e.g. authorId: { type: ref, to: authors })',
      'api.yaml:16:41  resources.authors.relations.books.via[0]  "userId" refers to users: the first field of via refers to authors',
      'api.yaml:16:49  resources.authors.relations.books.via[1]  "bookd" is not a ref field of taggings (did you mean "bookId"?)',
      'api.yaml:17:41  resources.authors.relations.users.via[0]  "bookId" refers to books: the first field of via refers to authors',
      'api.yaml:17:49  resources.authors.relations.users.via[1]  the two fields of via are the two sides: they must differ',
    ],
  },
  {
    name: 'self-referencing many-to-many: via says which side is which; names may not clash',
    given: withResources(`
      users:
        fields: { name: string, followers: string }
        relations:
          following: { through: follows, via: [followerId, followeeId], inverse: followers }
          friends: { through: follows }
      follows:
        fields:
          followerId: { type: ref, to: users, required: true }
          followeeId: { type: ref, to: users, required: true }
          note: { type: string, required: true }
    `),
    want: [
      'api.yaml:7:29  resources.users.relations.following.through  follows has required fields without a default (note): linking (PUT …/{otherId}) sets the two ids alone; give them a default or make them optional',
      'api.yaml:7:69  resources.users.relations.following.inverse  the many-to-many inverse "followers" on users (of users.following) clashes with the field "followers": give it another name with its key under `relations` (or its `inverse:`)',
      'api.yaml:8:27  resources.users.relations.friends.through  follows must hold exactly one ref to users and one to the other side (it has followerId → users, followeeId → users): say which with via: [followerId, followeeId]',
      `api.yaml:12:7  resources.follows.fields.followeeId  followeeId's inverse "follows" on users clashes with followerId's: give one of them another name with \`inverse:\` (e.g. inverse: followeeFollows)`,
    ],
  },
  {
    name: 'unique keys name fields of the resource, once each, json fields aside',
    given: withResources(`
      things:
        fields: { code: string, region: string, data: json }
        unique: [[code, regoin], [data, code], [region, code], [code, region], [code, code], []]
    `),
    want: [
      'api.yaml:6:21  resources.things.unique[0][1]  "regoin" is not a field of things (did you mean "region"?)',
      'api.yaml:6:31  resources.things.unique[1][0]  "data" is a json field: a key compares values, not documents',
      'api.yaml:6:60  resources.things.unique[3]  the key [code, region] is listed twice',
      'api.yaml:6:83  resources.things.unique[4][1]  "code" is listed twice',
      'api.yaml:6:90  resources.things.unique[5]  must not be empty',
    ],
  },
];

describe.each([
  ['relations', relations],
  ['many-to-many and unique keys', manyToMany],
])('validate: %s', (_, rows) => {
  it.each(rows)('$name', ({ given, want }) => {
    expect(problemsOf(given)).toEqual(want);
  });
});
