// Migration written by restsmith from tasks.yaml. Applied once, at start or by npm run migrate; never edit a migration that has run.

import type { MigrationSql } from './index.js';

/**
 * Migration 0001-initial:
 * - create the table of people
 * - create the table of projects
 * - create the table of tasks
 * - create the table of activity
 * - create the event log (events)
 *
 * Additive: a build from before it still starts on the database it leaves.
 */
export const migration: MigrationSql = {
  additive: true,
  sqlite: [
    `CREATE TABLE "restsmith_idempotency" (
  "caller" TEXT NOT NULL,
  "key" TEXT NOT NULL,
  "fingerprint" TEXT NOT NULL,
  "status" INTEGER NOT NULL DEFAULT 0,
  "headers" TEXT,
  "body" TEXT,
  "created_at" TEXT NOT NULL,
  PRIMARY KEY ("caller", "key")
)`,
    `CREATE INDEX "restsmith_idempotency_created_at_idx" ON "restsmith_idempotency" ("created_at")`,
    `CREATE TABLE "people" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "subject" TEXT NOT NULL,
  "email" TEXT NOT NULL,
  "display_name" TEXT NOT NULL,
  "calendar_token" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE UNIQUE INDEX "people_subject_key" ON "people" ("subject")`,
    `CREATE UNIQUE INDEX "people_email_lower_key" ON "people" (lower("email"))`,
    `CREATE TABLE "projects" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "key" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "description" TEXT,
  "lead_id" INTEGER REFERENCES "people" ("id") ON DELETE SET NULL,
  "archived" INTEGER NOT NULL DEFAULT 0,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE UNIQUE INDEX "projects_key_key" ON "projects" ("key")`,
    `CREATE INDEX "projects_lead_id_idx" ON "projects" ("lead_id", "id")`,
    `CREATE TABLE "tasks" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "project_id" INTEGER NOT NULL REFERENCES "projects" ("id") ON DELETE RESTRICT,
  "title" TEXT NOT NULL,
  "notes" TEXT,
  "status" TEXT NOT NULL DEFAULT 'todo',
  "priority" INTEGER NOT NULL DEFAULT 3,
  "estimate" REAL,
  "due_on" TEXT,
  "started_at" TEXT,
  "assignee_id" INTEGER REFERENCES "people" ("id") ON DELETE SET NULL,
  "reporter_id" TEXT,
  "completed_at" TEXT,
  "labels" TEXT,
  "external_id" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "tasks_project_id_idx" ON "tasks" ("project_id", "id")`,
    `CREATE INDEX "tasks_status_idx" ON "tasks" ("status", "id")`,
    `CREATE INDEX "tasks_due_on_idx" ON "tasks" ("due_on", "id")`,
    `CREATE INDEX "tasks_assignee_id_idx" ON "tasks" ("assignee_id", "id")`,
    `CREATE INDEX "tasks_reporter_id_idx" ON "tasks" ("reporter_id", "id")`,
    `CREATE UNIQUE INDEX "tasks_external_id_key" ON "tasks" ("external_id")`,
    `CREATE VIRTUAL TABLE "tasks_title_trgm" USING fts5("value", content='', contentless_delete=1, tokenize='trigram case_sensitive 0 remove_diacritics 0')`,
    `CREATE TRIGGER "tasks_title_trgm_insert" AFTER INSERT ON "tasks" WHEN new."title" IS NOT NULL BEGIN INSERT INTO "tasks_title_trgm" (rowid, "value") VALUES (new."id", new."title"); END`,
    `CREATE TRIGGER "tasks_title_trgm_delete" AFTER DELETE ON "tasks" WHEN old."title" IS NOT NULL BEGIN DELETE FROM "tasks_title_trgm" WHERE rowid = old."id"; END`,
    `CREATE TRIGGER "tasks_title_trgm_update" AFTER UPDATE OF "title" ON "tasks" BEGIN DELETE FROM "tasks_title_trgm" WHERE rowid = old."id" AND old."title" IS NOT NULL; INSERT INTO "tasks_title_trgm" (rowid, "value") SELECT new."id", new."title" WHERE new."title" IS NOT NULL; END`,
    `INSERT INTO "tasks_title_trgm" (rowid, "value") SELECT "id", "title" FROM "tasks" WHERE "title" IS NOT NULL`,
    `CREATE TABLE "activity" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "task_id" INTEGER NOT NULL REFERENCES "tasks" ("id") ON DELETE CASCADE,
  "message" TEXT NOT NULL,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "activity_task_id_idx" ON "activity" ("task_id", "id")`,
    `CREATE TABLE IF NOT EXISTS "restsmith_events" (
  "seq" INTEGER PRIMARY KEY,
  "type" TEXT NOT NULL,
  "at" TEXT NOT NULL,
  "owners" TEXT,
  "actor" TEXT,
  "event" TEXT NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS "restsmith_event_horizon" ("id" INTEGER PRIMARY KEY, "pruned_through" INTEGER NOT NULL)`,
    `INSERT INTO "restsmith_event_horizon" ("id", "pruned_through") VALUES (1, 0) ON CONFLICT DO NOTHING`,
  ],
  postgres: [
    `CREATE TABLE "restsmith_idempotency" (
  "caller" TEXT COLLATE "C" NOT NULL,
  "key" TEXT COLLATE "C" NOT NULL,
  "fingerprint" TEXT NOT NULL,
  "status" INTEGER NOT NULL DEFAULT 0,
  "headers" TEXT,
  "body" TEXT,
  "created_at" TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY ("caller", "key")
)`,
    `CREATE INDEX "restsmith_idempotency_created_at_idx" ON "restsmith_idempotency" ("created_at")`,
    `CREATE TABLE "people" (
  "id" BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  "subject" TEXT COLLATE "C" NOT NULL,
  "email" TEXT COLLATE "C" NOT NULL,
  "display_name" TEXT COLLATE "C" NOT NULL,
  "calendar_token" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE UNIQUE INDEX "people_subject_key" ON "people" ("subject")`,
    `CREATE UNIQUE INDEX "people_email_lower_key" ON "people" (lower("email"))`,
    `CREATE TABLE "projects" (
  "id" BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  "key" TEXT COLLATE "C" NOT NULL,
  "name" TEXT COLLATE "C" NOT NULL,
  "description" TEXT COLLATE "C",
  "lead_id" BIGINT,
  "archived" BOOLEAN NOT NULL DEFAULT FALSE,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE UNIQUE INDEX "projects_key_key" ON "projects" ("key")`,
    `CREATE INDEX "projects_lead_id_idx" ON "projects" ("lead_id", "id")`,
    `CREATE TABLE "tasks" (
  "id" BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  "project_id" BIGINT NOT NULL,
  "title" TEXT COLLATE "C" NOT NULL,
  "notes" TEXT COLLATE "C",
  "status" TEXT COLLATE "C" NOT NULL DEFAULT 'todo',
  "priority" BIGINT NOT NULL DEFAULT 3,
  "estimate" DOUBLE PRECISION,
  "due_on" TEXT COLLATE "C",
  "started_at" TIMESTAMPTZ,
  "assignee_id" BIGINT,
  "reporter_id" TEXT COLLATE "C",
  "completed_at" TIMESTAMPTZ,
  "labels" JSONB,
  "external_id" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "tasks_project_id_idx" ON "tasks" ("project_id", "id")`,
    `CREATE INDEX "tasks_status_idx" ON "tasks" ("status", "id")`,
    `CREATE INDEX "tasks_due_on_idx" ON "tasks" ("due_on", "id")`,
    `CREATE INDEX "tasks_assignee_id_idx" ON "tasks" ("assignee_id", "id")`,
    `CREATE INDEX "tasks_reporter_id_idx" ON "tasks" ("reporter_id", "id")`,
    `CREATE UNIQUE INDEX "tasks_external_id_key" ON "tasks" ("external_id")`,
    `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
    `CREATE INDEX "tasks_title_trgm" ON "tasks" USING gin (lower("title") gin_trgm_ops)`,
    `CREATE TABLE "activity" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "task_id" BIGINT NOT NULL,
  "message" TEXT COLLATE "C" NOT NULL,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "activity_task_id_idx" ON "activity" ("task_id", "id")`,
    `ALTER TABLE "projects" ADD CONSTRAINT "projects_lead_id_fkey" FOREIGN KEY ("lead_id") REFERENCES "people" ("id") ON DELETE SET NULL`,
    `ALTER TABLE "tasks" ADD CONSTRAINT "tasks_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects" ("id") ON DELETE RESTRICT`,
    `ALTER TABLE "tasks" ADD CONSTRAINT "tasks_assignee_id_fkey" FOREIGN KEY ("assignee_id") REFERENCES "people" ("id") ON DELETE SET NULL`,
    `ALTER TABLE "activity" ADD CONSTRAINT "activity_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks" ("id") ON DELETE CASCADE`,
    `CREATE TABLE IF NOT EXISTS "restsmith_events" (
  "seq" BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "type" TEXT COLLATE "C" NOT NULL,
  "at" TEXT COLLATE "C" NOT NULL,
  "owners" TEXT COLLATE "C",
  "actor" TEXT COLLATE "C",
  "event" TEXT NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS "restsmith_event_horizon" ("id" INTEGER PRIMARY KEY, "pruned_through" BIGINT NOT NULL)`,
    `INSERT INTO "restsmith_event_horizon" ("id", "pruned_through") VALUES (1, 0) ON CONFLICT DO NOTHING`,
  ],
};
