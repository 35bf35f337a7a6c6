import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleValue } from '../../src/contract/samples.js';
import type { AccessRule, Action, Api, JsonValue, Resource } from '../../src/model.js';
import { readDefinition } from '../../src/pipeline/read-definition.js';
import { http, ROOT, type RunningServer, serveGenerated } from '../helpers/project.js';
import { SECRET, token, unsignedToken } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * The guard matrix, generated from each example's definition: every operation and action, asked by every
 * kind of caller, must answer exactly the status the rule implies. The expected status comes from `expected`
 * below, written from SPEC §2–3, not from the generated code.
 */
type Callers =
  | 'none'
  | 'expired'
  | 'not yet valid'
  | 'wrongly signed'
  | 'alg none'
  | 'admin'
  | 'owner'
  | 'non-owner'
  | `role ${string}`;
type Kind = 'list' | 'read' | 'create' | 'replace' | 'patch' | 'delete' | 'action';

interface Case {
  resource: Resource;
  kind: Kind;
  action?: Action;
  rule: AccessRule;
}

const INVALID_TOKENS = ['expired', 'not yet valid', 'wrongly signed', 'alg none'];

/** The status SPEC §3 asks for: 401 for a missing or bad token, 403 for a rule that refuses, 404 for another's record. */
function expected(api: Api, c: Case, caller: Callers): number {
  const success = successStatus(c);
  // a public rule needs no token: one that is refused leaves the caller anonymous (SPEC §3: 401 only where a rule needs one)
  if (c.rule.some((t) => t.kind === 'public')) return success;
  if (INVALID_TOKENS.includes(caller)) return 401;
  if (caller === 'none') return 401;
  if (caller === 'admin') return success;
  if (c.rule.some((t) => t.kind === 'authenticated')) return success;
  const role = caller.startsWith('role ') ? caller.slice(5) : undefined;
  if (role !== undefined && c.rule.some((t) => t.kind === 'role' && t.role === role)) return success;
  if (c.rule.some((t) => t.kind === 'owner')) {
    if (c.kind === 'list' || c.kind === 'create') return success;
    return caller === 'owner' ? success : 404;
  }
  void api;
  return 403;
}

function successStatus(c: Case): number {
  if (c.kind === 'create') return 201;
  if (c.kind === 'delete') return 204;
  if (c.kind === 'action') return c.action?.set.length === 0 ? 501 : 200;
  return 200;
}

function casesOf(resource: Resource): Case[] {
  const ops: Case[] = [];
  const has = (op: 'list' | 'read' | 'create' | 'update' | 'delete') => resource.operations.includes(op);
  if (has('list')) ops.push({ resource, kind: 'list', rule: resource.access.list });
  if (has('read')) ops.push({ resource, kind: 'read', rule: resource.access.read });
  if (has('create')) ops.push({ resource, kind: 'create', rule: resource.access.create });
  if (has('update'))
    ops.push(
      { resource, kind: 'replace', rule: resource.access.update },
      { resource, kind: 'patch', rule: resource.access.update },
    );
  if (has('delete')) ops.push({ resource, kind: 'delete', rule: resource.access.delete });
  for (const action of resource.actions) ops.push({ resource, kind: 'action', action, rule: action.access });
  return ops;
}

/** Builds records through the API as the administrator, each with an owner of the test's choosing. */
class Records {
  #n = 100;
  #subjects = new Map<string, string>();

  constructor(
    private readonly api: Api,
    private readonly base: string,
  ) {}

  #next(): number {
    return (this.#n += 1);
  }

  /**
   * Sample values of every writable field but the owner's and those with a default (records start where
   * the actions' preconditions expect them); refs point at fresh records.
   */
  async body(resource: Resource): Promise<Record<string, JsonValue>> {
    const n = this.#next();
    const body: Record<string, JsonValue> = {};
    for (const field of resource.fields) {
      if (field.readOnly || resource.owners.includes(field.name) || field.default !== undefined) continue;
      if (field.ref !== undefined) {
        if (!field.required) continue;
        const target = this.resource(field.ref.to);
        body[field.name] = (await this.create(target)).id;
        continue;
      }
      const value = sampleValue(field, n);
      if (value !== undefined) body[field.name] = value;
    }
    return body;
  }

  resource(name: string): Resource {
    const found = this.api.resources.find((r) => r.name === name);
    if (found === undefined) throw new Error(`no resource ${name}`);
    return found;
  }

  /** The subject a caller of this name has for `resource`: an id of the target when the owner field is a ref. */
  async subject(resource: Resource, caller: string): Promise<string> {
    const ownerField = resource.fields.find((f) => f.name === resource.owners[0]);
    const key = `${ownerField?.ref?.to ?? '-'}:${caller}`;
    const known = this.#subjects.get(key);
    if (known !== undefined) return known;
    const subject =
      ownerField?.ref === undefined
        ? `${caller.replace(/\W/g, '-')}-subject`
        : String((await this.create(this.resource(ownerField.ref.to))).id);
    this.#subjects.set(key, subject);
    return subject;
  }

  /** A new record of `resource` owned by `ownerCaller`'s subject; returns its id and that subject. */
  async create(
    resource: Resource,
    ownerCaller = `owner-${this.#next()}`,
  ): Promise<{ id: string | number; subject: string }> {
    const body = await this.body(resource);
    const subject = await this.subject(resource, ownerCaller);
    const ownerField = resource.fields.find((f) => f.name === resource.owners[0]);
    if (ownerField !== undefined && !ownerField.readOnly)
      body[ownerField.name] =
        ownerField.ref === undefined ? subject : idValue(this.resource(ownerField.ref.to), subject);
    const bearer = await token(subject, { roles: [this.api.auth.adminRole] });
    const r = await http('POST', `${this.base}/${resource.name}`, body, { authorization: `Bearer ${bearer}` });
    if (r.status !== 201) throw new Error(`could not create ${resource.name}: ${r.status} ${r.text}`);
    const id = (r.body as { id: string | number }).id;
    return { id, subject: resource.owners[0] === 'id' ? String(id) : subject };
  }
}

const idValue = (resource: Resource, subject: string): JsonValue =>
  resource.id === 'integer' ? Number(subject) : subject;

async function bearerFor(api: Api, caller: Callers, subject: string): Promise<string | undefined> {
  const admin = [api.auth.adminRole];
  switch (caller) {
    case 'none':
      return undefined;
    case 'expired':
      return token(subject, { roles: admin, expires: Math.floor(Date.now() / 1000) - 60 });
    case 'not yet valid':
      return token(subject, { roles: admin, notBefore: Math.floor(Date.now() / 1000) + 3600 });
    case 'wrongly signed':
      return token(subject, { roles: admin, secret: 'another-secret-that-is-32-bytes-long!!' });
    case 'alg none':
      return unsignedToken(subject, admin);
    case 'admin':
      return token(subject, { roles: admin });
    case 'owner':
    case 'non-owner':
      return token(subject);
    default:
      return token(subject, { roles: [caller.slice(5)] });
  }
}

async function actionBody(action: Action): Promise<Record<string, JsonValue> | undefined> {
  if (action.input.length === 0) return undefined;
  return Object.fromEntries(
    action.input.flatMap((f) => {
      const value = sampleValue(f, 1);
      return value === undefined ? [] : [[f.name, value]];
    }),
  );
}

describe.each(['blog.yaml', 'tasks.yaml'])('guard matrix of examples/%s', (example) => {
  let server: RunningServer;
  let api: Api;
  let base: string;
  let records: Records;

  beforeAll(async () => {
    api = await readDefinition(`${ROOT}/examples/${example}`);
    ({ server } = await serveGenerated(
      `${ROOT}/examples/${example}`,
      `guards-${example.replace('.yaml', '')}`,
      { DATABASE_URL: await databaseUrl(`guards-${example}`), JWT_SECRET: SECRET },
      `${api.prefix}/healthz`,
    ));
    base = server.url + api.prefix;
    records = new Records(api, base);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('answers every operation and action, for every caller, with the status its rule implies', async () => {
    const callers: Callers[] = [
      'none',
      ...(INVALID_TOKENS as Callers[]),
      'admin',
      'owner',
      'non-owner',
      ...api.auth.roles.filter((r) => r !== api.auth.adminRole).map((r): Callers => `role ${r}`),
    ];
    const mismatches: string[] = [];
    let checked = 0;
    for (const resource of api.resources) {
      for (const c of casesOf(resource)) {
        for (const caller of callers) {
          const status = await attempt(c, caller);
          checked += 1;
          const want = expected(api, c, caller);
          if (status !== want)
            mismatches.push(`${resource.name} ${c.action?.name ?? c.kind} as ${caller}: got ${status}, want ${want}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  /** One request of case `c` as `caller`, on a fresh record where it needs one; returns the status. */
  async function attempt(c: Case, caller: Callers): Promise<number> {
    const { resource } = c;
    const needsRecord =
      c.kind !== 'list' && c.kind !== 'create' && !(c.kind === 'action' && c.action?.on === 'collection');
    const target = needsRecord ? await records.create(resource) : undefined;
    const subject =
      caller === 'owner' && target !== undefined ? target.subject : await records.subject(resource, caller);
    const bearer = await bearerFor(api, caller, subject);
    const headers: Record<string, string> = bearer === undefined ? {} : { authorization: `Bearer ${bearer}` };
    const collection = `${base}/${resource.name}`;
    const item = `${collection}/${target?.id}`;
    switch (c.kind) {
      case 'list':
        return (await http('GET', collection, undefined, headers)).status;
      case 'read':
        return (await http('GET', item, undefined, headers)).status;
      case 'create':
        return (await http('POST', collection, await records.body(resource), headers)).status;
      case 'replace':
        return (await http('PUT', item, await records.body(resource), headers)).status;
      case 'patch':
        return (await http('PATCH', item, {}, headers)).status;
      case 'delete':
        return (await http('DELETE', item, undefined, headers)).status;
      case 'action': {
        const action = c.action as Action;
        const url = action.on === 'item' ? `${item}/${action.name}` : `${collection}/${action.name}`;
        if (action.method === 'get') {
          // a read-only action's input is its query string
          const query = new URLSearchParams(
            Object.entries((await actionBody(action)) ?? {}).map(([name, value]) => [name, String(value)]),
          );
          return (await http('GET', `${url}?${query}`, undefined, headers)).status;
        }
        return (await http('POST', url, await actionBody(action), headers)).status;
      }
    }
  }
});
