/** The commented starter definition written by `restsmith init`. */
import { API_NAME } from './schema.js';

const FALLBACK_NAME = 'my-api';

/** Makes `name` a valid API name (lower-case letters, digits, '-', starting with a letter). */
export function starterName(name: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '');
  return API_NAME.test(cleaned) ? cleaned : FALLBACK_NAME;
}

/** A small, valid definition that shows the main features, with comments. `name` is made valid. */
export function starterDefinition(name: string): string {
  return `# A restsmith resource definition. Check it and generate a server with:
#   restsmith validate <this file>
#   restsmith generate <this file>
# For completion and checks while you type, save the JSON Schema of this format
# (restsmith schema > restsmith.schema.json) and point your editor's YAML support at it.
# Every key is described in the restsmith documentation (docs/definition.md).

name: ${starterName(name)}  # npm package name of the generated project
version: 0.1.0            # API version, shown in the OpenAPI document
prefix: /api              # optional: every route sits under it

auth:
  default: authenticated  # access for any operation that does not say
  adminRole: admin        # this role passes every access rule
  roles: [admin, member]  # every role this file may name

limits:
  pageSize: { default: 20, max: 100 }
  bodySize: 1mb
  rateLimit: { max: 300, window: 1m }   # per client

resources:
  # GET/POST /api/projects, GET/PUT/PATCH/DELETE /api/projects/{id}
  projects:
    owner: ownerId        # the \`owner\` rule compares this field with the token subject
    fields:
      name: { type: string, required: true, minLength: 1, maxLength: 100 }
      description: text   # shorthand for { type: text }
      ownerId: { type: string, readOnly: true }   # set to the caller on create
    access:
      list: public
      read: public
      create: [member]
      update: [owner]     # the admin role passes every rule as well
      delete: [owner]

  tasks:
    id: integer           # auto-increment ids (default: uuid)
    fields:
      title: { type: string, required: true, maxLength: 200 }
      status: { type: enum, values: [open, done], default: open, readOnly: true }
      priority: { type: integer, min: 1, max: 5, default: 3 }
      due: { type: date, nullable: true }
      doneAt: { type: datetime, nullable: true, readOnly: true }
      projectId: { type: ref, to: projects, required: true, onDelete: cascade }
    actions:
      complete:           # POST /api/tasks/{id}/complete
        on: item
        access: [member]
        when: { status: open }                  # otherwise 409
        set: { status: done, doneAt: now }
`;
}
