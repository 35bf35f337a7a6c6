import { describe, expect, it } from 'vitest';
import { problemsOf, withResources } from './helpers.js';

/**
 * Index names are schema-wide and made of table and column names (src/schema/ddl.ts, indexesOf): two that are one
 * name in a database, or in the 63 bytes PostgreSQL keeps, would fail the migration that makes the second. Each row:
 * a definition and every problem it must produce, exactly as printed.
 */
const rows: { name: string; given: string; want: string[] }[] = [
  {
    name: 'a field of rooms and a field of rooms-slot whose index names meet',
    given: withResources(`
      rooms:
        fields: { slotCode: { type: string, unique: true } }
      rooms-slot:
        fields: { code: { type: string, unique: true } }
    `),
    want: [
      'api.yaml:7:15  resources.rooms-slot.fields.code  the index of rooms-slot.code would be named "rooms_slot_code_key", as the index of rooms.slotCode is: the migration would fail. Rename this field or resource, or that one (`renamedFrom` keeps its data)',
    ],
  },
  {
    name: 'two unique keys of one resource whose columns join to the same name',
    given: withResources(`
      rooms:
        unique: [[slotCode, day], [slot, codeDay]]
        fields: { slotCode: string, day: string, slot: string, codeDay: string }
    `),
    want: [
      'api.yaml:5:31  resources.rooms.unique[1]  the index of the unique key [slot, codeDay] of rooms would be named "rooms_slot_code_day_key", as the index of the unique key [slotCode, day] of rooms is: the migration would fail. Rename this field or resource, or that one (`renamedFrom` keeps its data)',
    ],
  },
  {
    name: 'two long names that differ only past the 63 bytes PostgreSQL keeps',
    given: withResources(`
      course-enrollment-request-approvals:
        fields:
          studentIdentificationNumberAlpha: { type: string, index: true }
          studentIdentificationNumberBeta: { type: string, index: true }
    `),
    want: [
      'api.yaml:7:7  resources.course-enrollment-request-approvals.fields.studentIdentificationNumberBeta  the index of course-enrollment-request-approvals.studentIdentificationNumberBeta would be named "course_enrollment_request_approvals_student_identification_numb" in PostgreSQL (it keeps the first 63 bytes of a name), as the index of course-enrollment-request-approvals.studentIdentificationNumberAlpha is: the migration would fail. Rename this field or resource, or that one (`renamedFrom` keeps its data)',
    ],
  },
  {
    name: 'two foreign keys of one table whose names share the 63 bytes PostgreSQL keeps',
    given: withResources(`
      departments: { fields: { name: string } }
      course-enrollment-request-approvals:
        fields:
          approvedByDepartmentHeadId: { type: ref, to: departments, inverse: headApprovals }
          approvedByDepartmentHeadDeputyId: { type: ref, to: departments, inverse: deputyApprovals }
    `),
    want: [
      // a ref column is indexed too (nested listings): its index and its foreign key clash alike
      'api.yaml:8:7  resources.course-enrollment-request-approvals.fields.approvedByDepartmentHeadDeputyId  the index of course-enrollment-request-approvals.approvedByDepartmentHeadDeputyId would be named "course_enrollment_request_approvals_approved_by_department_head" in PostgreSQL (it keeps the first 63 bytes of a name), as the index of course-enrollment-request-approvals.approvedByDepartmentHeadId is: the migration would fail. Rename this field or resource, or that one (`renamedFrom` keeps its data)',
      'api.yaml:8:7  resources.course-enrollment-request-approvals.fields.approvedByDepartmentHeadDeputyId  the foreign key of course-enrollment-request-approvals.approvedByDepartmentHeadDeputyId would be named "course_enrollment_request_approvals_approved_by_department_head" in PostgreSQL (it keeps the first 63 bytes of a name), as the foreign key of course-enrollment-request-approvals.approvedByDepartmentHeadId is: the migration would fail. Rename this field or resource, or that one (`renamedFrom` keeps its data)',
    ],
  },
  {
    name: 'a table whose name is an index of another resource (tables and indexes share one namespace)',
    given: withResources(`
      rooms:
        fields: { code: { type: string, unique: true } }
      rooms-code-key:
        fields: { name: string }
    `),
    want: [
      'api.yaml:6:3  resources.rooms-code-key  the table of rooms-code-key would be named "rooms_code_key", as the index of rooms.code is: the migration would fail. Rename this field or resource, or that one (`renamedFrom` keeps its data)',
    ],
  },
  {
    name: "a resource named into the server's own tables",
    given: withResources(`
      restsmith:
        fields: { idempotencyCreatedAt: { type: datetime, index: true } }
      restsmith-idempotency:
        fields: { name: string }
      sqlite-stats: { fields: {} }
      pg-stats: { fields: {} }
      pgadmin: { fields: {} }
    `),
    want: [
      'api.yaml:4:3  resources.restsmith  "restsmith" would name tables or indexes among the server\'s own (restsmith_migrations, restsmith_idempotency…): choose another name',
      'api.yaml:6:3  resources.restsmith-idempotency  "restsmith-idempotency" would name tables or indexes among the server\'s own (restsmith_migrations, restsmith_idempotency…): choose another name',
      'api.yaml:8:3  resources.sqlite-stats  "sqlite-stats" would name tables or indexes among SQLite\'s own (it refuses names that begin with sqlite_): choose another name',
      'api.yaml:9:3  resources.pg-stats  "pg-stats" would name tables or indexes among PostgreSQL\'s own (it finds pg_ names in pg_catalog first: pg_stats, pg_tables…): choose another name',
    ],
  },
  {
    name: "a table named as PostgreSQL names another's primary key or id sequence",
    given: withResources(`
      people:
        id: integer
        fields: { name: string }
      people-pkey: { fields: {} }
      people-id-seq: { fields: {} }
    `),
    want: [
      'api.yaml:7:3  resources.people-pkey  the table of people-pkey would be named "people_pkey", as the index of people.id is: the migration would fail. Rename this field or resource, or that one (`renamedFrom` keeps its data)',
      'api.yaml:8:3  resources.people-id-seq  the table of people-id-seq would be named "people_id_seq", as the index of people.id is: the migration would fail. Rename this field or resource, or that one (`renamedFrom` keeps its data)',
    ],
  },
  {
    name: 'names that differ within 63 bytes, and a long name alone',
    given: withResources(`
      course-enrollment-request-approvals:
        fields:
          studentNumberAlpha: { type: string, unique: true }
          studentNumberBeta: { type: string, unique: true }
          aVeryLongFieldNameThatGoesOnPastTheLimitOfPostgres: { type: string, unique: true }
    `),
    want: [],
  },
];

describe('index names', () => {
  it.each(rows)('$name', ({ given, want }) => expect(problemsOf(given)).toEqual(want));
});
