import { describe, expect, it } from 'vitest';
import { callersOf } from '../../../src/contract/access-matrix.js';
import { relationMatrix } from '../../../src/contract/relation-matrix.js';
import { fixtures } from '../../../src/generate/fixtures.js';
import { relationsView } from '../../../src/generate/relations-view.js';
import type { Api } from '../../../src/model.js';
import { normalise } from '../../../src/pipeline/normalise.js';
import { definitionOf } from '../definition/helpers.js';

/**
 * Shelves of an owner, the boxes on them, and labels linked to boxes (through box-labels). Roles: admin (the
 * administrator) and clerk. Each test gives the rules that matter; the rest are `admin`.
 */
function library(rules: {
  shelves?: string;
  boxes?: string;
  labels?: string;
  links?: string;
  boxOwner?: boolean;
}): Api {
  return normalise(
    definitionOf(`
      name: store
      version: 1.0.0
      auth: { roles: [admin, clerk] }
      resources:
        shelves:
          owner: keeperId
          fields: { name: { type: string, required: true }, keeperId: { type: string, readOnly: true } }
          access: ${rules.shelves ?? '{ list: admin, read: admin, create: admin, update: admin, delete: admin }'}
        boxes:
          ${rules.boxOwner === true ? 'owner: packerId' : ''}
          fields:
            shelfId: { type: ref, to: shelves, required: true, onDelete: cascade }
            ${rules.boxOwner === true ? 'packerId: { type: string, readOnly: true }' : ''}
          relations: { labels: { through: box-labels } }
          access: ${rules.boxes ?? '{ list: admin, read: admin, create: admin, update: admin, delete: admin }'}
        labels:
          fields: { text: { type: string, required: true } }
          access: ${rules.labels ?? '{ list: admin, read: admin, create: admin, update: admin, delete: admin }'}
        box-labels:
          fields:
            boxId: { type: ref, to: boxes, required: true, onDelete: cascade }
            labelId: { type: ref, to: labels, required: true, onDelete: cascade }
          unique: [[boxId, labelId]]
          access: ${rules.links ?? '{ list: admin, read: admin, create: admin, update: admin, delete: admin }'}
    `),
  );
}

/** The rows of `resource`.`relation`: per row, the statuses in the order of the callers. */
function rowsOf(api: Api, resource: string, relation: string) {
  const r = api.resources.find((x) => x.name === resource);
  const rel = r?.relations.find((x) => x.name === relation);
  if (r === undefined || rel === undefined) throw new Error(`no ${resource}.${relation}`);
  const callers = callersOf(api, r);
  return relationMatrix(api, r, rel).map((row) => `${row.method} ${callers.map((c) => row.statuses[c]).join(' ')}`);
}

describe('the access matrix of relation routes', () => {
  //                         no token, expired, badly signed, administrator, role:clerk, stranger, owner
  it.each([
    {
      name: "the other resource's rule first, then the record of the path must be readable (404)",
      rules: {
        shelves: '{ list: public, read: [clerk, owner], create: admin, update: admin, delete: admin }',
        boxes: '{ list: public, read: public, create: authenticated, update: admin, delete: admin }',
      },
      // a public listing admits a bad token as none, then the shelf is not theirs to read; a stranger reads no shelf
      want: ['GET 404 404 404 200 200 404 200', 'POST 401 401 401 201 201 404 201'],
    },
    {
      name: "the other resource's rule refuses before the record is looked at",
      rules: {
        shelves: '{ list: public, read: public, create: admin, update: admin, delete: admin }',
        boxes: '{ list: clerk, read: public, create: clerk, update: admin, delete: admin }',
      },
      want: ['GET 401 401 401 200 200 403 403', 'POST 401 401 401 201 201 403 403'],
    },
  ])('$name', ({ rules, want }) => {
    expect(rowsOf(library(rules), 'shelves', 'boxes')).toEqual(want);
  });

  it('a nested create whose owner is the caller: a caller admitted by `owner` makes their own', () => {
    const api = library({
      shelves: '{ list: public, read: public, create: admin, update: admin, delete: admin }',
      boxes: '{ list: owner, read: owner, create: [clerk, owner], update: admin, delete: admin }',
      boxOwner: true,
    });
    // shelves have no owner term in the boxes' rules: the `owner` caller is the shelf's owner, making a box of theirs
    expect(rowsOf(api, 'shelves', 'boxes')).toEqual([
      'GET 401 401 401 200 200 200 200',
      'POST 401 401 401 201 201 201 201',
    ]);
  });

  it("links need the join's rule, then both ends readable; an unlink by a caller who deletes only their own is a 404", () => {
    const api = library({
      boxes: '{ list: public, read: authenticated, create: admin, update: admin, delete: admin }',
      labels: '{ list: public, read: [clerk], create: admin, update: admin, delete: admin }',
      links: '{ list: public, read: public, create: authenticated, update: admin, delete: [clerk] }',
    });
    expect(rowsOf(api, 'boxes', 'labels')).toEqual([
      // GET /boxes/{id}/labels: labels' list is public; the box needs a token
      'GET 404 404 404 200 200 200',
      // PUT: anyone with a token may link, but a stranger cannot read the label (404)
      'PUT 401 401 401 204 204 404',
      'DELETE 401 401 401 204 204 403',
    ]);
  });

  it('a nested create naming a record the caller may not read (besides the path) is a 409', () => {
    const api = normalise(
      definitionOf(`
        name: store
        version: 1.0.0
        auth: { roles: [admin, clerk] }
        resources:
          shelves:
            fields: { name: string }
            access: { list: public, read: public, create: admin, update: admin, delete: admin }
          rooms:
            fields: { name: string }
            access: { list: admin, read: admin, create: admin, update: admin, delete: admin }
          boxes:
            fields:
              shelfId: { type: ref, to: shelves, required: true }
              roomId: { type: ref, to: rooms, required: true }
            access: { list: public, read: public, create: [clerk], update: admin, delete: admin }
      `),
    );
    const shelves = api.resources.find((r) => r.name === 'shelves');
    const boxes = shelves?.relations.find((r) => r.name === 'boxes');
    if (shelves === undefined || boxes === undefined) throw new Error('no shelves.boxes');
    const [create] = relationMatrix(api, shelves, boxes, ['shelfId', 'roomId']).filter((r) => r.what === 'create');
    expect(create?.statuses).toMatchObject({ administrator: 201, 'role:clerk': 409, stranger: 403 });
  });
});

describe('the status of a create, past its rule', () => {
  const school = () =>
    normalise(
      definitionOf(`
        name: school
        version: 1.0.0
        auth: { roles: [admin, registrar, teacher] }
        resources:
          students:
            owner: id
            fields: { name: string }
            access: { list: [registrar, owner], read: [registrar, teacher, owner], create: registrar, update: admin, delete: admin }
          courses:
            fields: { title: string }
            access: { list: public, read: public, create: admin, update: admin, delete: admin }
          enrolments:
            owner: studentId
            fields:
              studentId: { type: ref, to: students, required: true, onDelete: cascade }
              courseId: { type: ref, to: courses, required: true, onDelete: cascade }
            access: { list: [registrar, owner], read: [registrar, owner], create: [registrar, owner, authenticated], update: admin, delete: admin }
      `),
    );
  const rowOf = (api: Api, parent: string) => {
    const resource = api.resources.find((r) => r.name === parent);
    const relation = resource?.relations.find((r) => r.name === 'enrolments');
    if (resource === undefined || relation === undefined) throw new Error(`no ${parent}.enrolments`);
    const callers = callersOf(api, resource);
    const create = relationMatrix(api, resource, relation, ['studentId', 'courseId']).find((r) => r.what === 'create');
    return callers.map((c) => create?.statuses[c]).join(' ');
  };

  it('an owner given by the path: staff name anyone, the student (owning their record by its id) themselves', () => {
    //                          no token, expired, badly signed, administrator, registrar, teacher, stranger, owner
    expect(rowOf(school(), 'students')).toBe('401 401 401 201 201 403 404 201');
  });

  it("an owner given in the body, the administrator's student: who is not staff is refused (403) before the refs", () => {
    //                          no token, expired, badly signed, administrator, registrar, teacher, stranger
    expect(rowOf(school(), 'courses')).toBe('401 401 401 201 201 403 403');
  });
});

describe('the relations the generated tests exercise', () => {
  it('takes each side of a ref and a many-to-many relation whose links PUT makes, with what each caller sees', () => {
    const api = library({
      shelves: '{ list: public, read: public, create: admin, update: admin, delete: admin }',
      boxes: '{ list: owner, read: [clerk, owner], create: authenticated, update: admin, delete: admin }',
      labels: '{ list: public, read: public, create: admin, update: admin, delete: admin }',
      boxOwner: true,
    });
    const views = relationsView(api, Object.fromEntries(fixtures(api).map((f) => [f.name, f])));
    expect(views.map((v) => `${v.collection}.${v.relation} ${v.kind} ${v.onDelete ?? '-'}`)).toEqual([
      'shelves.boxes many cascade',
      'boxes.shelf one -',
      'boxes.boxLabels many cascade',
      'boxes.labels many -',
      'labels.boxLabels many cascade',
      'labels.boxes many -',
      'box-labels.box one -',
      'box-labels.label one -',
    ]);
    const boxes = views.find((v) => v.collection === 'shelves' && v.relation === 'boxes');
    // no token, expired, badly signed, administrator, clerk, stranger, owner (of the shelf)
    expect(boxes?.reads).toEqual(['none', 'none', 'none', 'all', 'all', 'own', 'own']);
    expect(boxes?.lists).toEqual(['none', 'none', 'none', 'all', 'own', 'own', 'own']);
    expect(boxes?.owners).toEqual(['packerId']);
  });
});
