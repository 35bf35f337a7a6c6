import { describe, expect, it } from 'vitest';
import { DefinitionError, formatProblem } from '../../../src/errors.js';
import { readDefinition } from '../../../src/pipeline/read-definition.js';

async function problemsOfFile(file: string): Promise<string[]> {
  try {
    await readDefinition(file);
    return [];
  } catch (error) {
    if (error instanceof DefinitionError) return error.problems.map(formatProblem);
    throw error;
  }
}

describe('the examples', () => {
  it('blog.yaml validates and normalises', async () => {
    const api = await readDefinition('examples/blog.yaml');
    expect(api.name).toBe('blog');
    expect(api.resources.map((r) => [r.name, r.typeName, r.table])).toEqual([
      ['users', 'User', 'users'],
      ['posts', 'Post', 'posts'],
    ]);
    const posts = api.resources[1];
    expect(posts?.actions.map((a) => [a.name, a.on, a.set.length, a.input.length])).toEqual([
      ['publish', 'item', 2, 0],
      ['import', 'collection', 0, 1],
    ]);
  });

  it('tasks.yaml validates and normalises', async () => {
    const api = await readDefinition('examples/tasks.yaml');
    expect(api.prefix).toBe('');
    expect(api.limits).toEqual({
      pageSize: { default: 50, max: 200 },
      bodySize: 262144,
      includeDepth: 2,
      include: { maxRecords: 3000 },
      rateLimit: { max: 120, windowMs: 30000 },
    });
    expect(api.resources.map((r) => [r.name, r.typeName, r.id, r.operations.join(',')])).toEqual([
      ['people', 'Person', 'integer', 'list,read,create,update,delete'],
      ['projects', 'Project', 'integer', 'list,read,create,update,delete'],
      ['tasks', 'Task', 'integer', 'list,read,create,update,delete'],
      ['activity', 'Activity', 'uuid', 'list,read,create'],
    ]);
    const tasks = api.resources[2];
    const ref = (name: string) => tasks?.fields.find((f) => f.name === name)?.ref;
    expect([ref('projectId'), ref('assigneeId')]).toEqual([
      { to: 'projects', onDelete: 'restrict', as: 'project', inverse: 'tasks' },
      { to: 'people', onDelete: 'setNull', as: 'assignee', inverse: 'tasks' },
    ]);
  });
});

describe('the invalid examples', () => {
  it.each([
    {
      file: 'examples/invalid/typo-type.yaml',
      want: [
        'examples/invalid/typo-type.yaml:8:15  resources.posts.fields.title.type  unknown type "strng" (did you mean "string"?)',
      ],
    },
    {
      file: 'examples/invalid/bad-ref.yaml',
      want: [
        'examples/invalid/bad-ref.yaml:9:34  resources.posts.fields.authorId.to  unknown resource "user" (did you mean "users"?)',
        'examples/invalid/bad-ref.yaml:10:34  resources.posts.fields.editorId.to  unknown resource "editors" (expected "users" or "posts")',
        'examples/invalid/bad-ref.yaml:10:53  resources.posts.fields.editorId.onDelete  onDelete setNull needs nullable: true',
        'examples/invalid/bad-ref.yaml:11:19  resources.posts.fields.reviewerId.to  missing required key "to"',
      ],
    },
    {
      file: 'examples/invalid/names.yaml',
      want: [
        'examples/invalid/names.yaml:6:7  resources.posts.fields.class  "class" is a reserved word',
        'examples/invalid/names.yaml:8:7  resources.posts.fields.authorID  field "authorID" collides with field "authorId" (both become author_id)',
        'examples/invalid/names.yaml:9:7  resources.posts.fields.createdAt  "createdAt" is a system field: every record has it, do not declare it',
        'examples/invalid/names.yaml:10:7  resources.posts.fields.Title  "Title" is not a valid field name: use camelCase: a lower-case letter, then letters and digits',
        'examples/invalid/names.yaml:11:3  resources.post  resource "post" collides with resource "posts" (both have the type name Post)',
        `examples/invalid/names.yaml:14:3  resources.docs  "docs" collides with the server's own route /docs`,
      ],
    },
    {
      file: 'examples/invalid/access.yaml',
      want: [
        'examples/invalid/access.yaml:11:24  resources.posts.access.create[1]  unknown role "writer" (add it to auth.roles)',
        'examples/invalid/access.yaml:12:16  resources.posts.access.update[0]  unknown role "edtor" (did you mean "editor"?)',
        'examples/invalid/access.yaml:12:23  resources.posts.access.update[1]  rule "owner" needs resource "posts" to declare its owner field (owner: <field>)',
      ],
    },
    {
      file: 'examples/invalid/actions.yaml',
      want: [
        'examples/invalid/actions.yaml:12:33  resources.posts.actions.publish.when.status[1]  "live" is not one of "draft" or "published"',
        'examples/invalid/actions.yaml:12:40  resources.posts.actions.publish.when.state  unknown field "state" of "posts" (did you mean "status"?)',
        'examples/invalid/actions.yaml:13:42  resources.posts.actions.publish.set.title  now applies only to date and datetime fields; "title" is string',
        'examples/invalid/actions.yaml:16:9  resources.posts.actions.archive.when  when needs on: item: a collection action has no stored record to test',
        'examples/invalid/actions.yaml:18:9  resources.posts.actions.preview.on  missing required key "on"',
      ],
    },
  ])('$file', async ({ file, want }) => {
    expect(await problemsOfFile(file)).toEqual(want);
  });

  it('many-problems.yaml: every problem is reported at once', async () => {
    const file = 'examples/invalid/many-problems.yaml';
    expect(await problemsOfFile(file)).toEqual([
      `${file}:2:7  name  "My Blog" is not a valid name: use lower-case letters, digits and '-', starting with a letter`,
      `${file}:3:10  version  expected a string, got a number (put it in quotes)`,
      `${file}:4:1  prefx  unknown key "prefx" (did you mean "prefix"?)`,
      `${file}:9:5  resources.users.fileds  unknown key "fileds" (did you mean "fields"?)`,
      `${file}:12:12  resources.posts.owner  owner "author" is not a field of "posts" (did you mean "authorId"?)`,
      `${file}:14:22  resources.posts.fields.title.type  unknown type "strng" (did you mean "string"?)`,
      `${file}:15:27  resources.posts.fields.body.requried  unknown option "requried" (did you mean "required"?)`,
      `${file}:16:31  resources.posts.fields.views.minLength  option minLength does not apply to type integer`,
      `${file}:17:34  resources.posts.fields.authorId.to  unknown resource "user" (did you mean "users"?)`,
      `${file}:18:7  resources.posts.fields.createdAt  "createdAt" is a system field: every record has it, do not declare it`,
      `${file}:20:23  resources.posts.access.update[1]  unknown role "edtor" (did you mean "editor"?)`,
    ]);
  });
});
