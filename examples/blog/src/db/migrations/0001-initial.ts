// Migration written by restsmith from blog.yaml. Applied once, at start or by npm run migrate; never edit a migration that has run.

import type { MigrationSql } from './index.js';

/**
 * Migration 0001-initial:
 * - create the table of users
 * - create the table of posts
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
    `CREATE TABLE "users" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "email" TEXT NOT NULL,
  "name" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE UNIQUE INDEX "users_email_lower_key" ON "users" (lower("email"))`,
    `CREATE TABLE "posts" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "title" TEXT NOT NULL,
  "body" TEXT,
  "status" TEXT NOT NULL DEFAULT 'draft',
  "views" INTEGER NOT NULL DEFAULT 0,
  "rating" REAL,
  "featured" INTEGER NOT NULL DEFAULT 0,
  "published_at" TEXT,
  "author_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "meta" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "posts_author_id_idx" ON "posts" ("author_id", "id")`,
    `CREATE VIRTUAL TABLE "posts_title_trgm" USING fts5("value", content='', contentless_delete=1, tokenize='trigram case_sensitive 0 remove_diacritics 0')`,
    `CREATE TABLE "posts_title_trgm_keys" ("key" INTEGER PRIMARY KEY, "id" TEXT NOT NULL UNIQUE)`,
    `CREATE TRIGGER "posts_title_trgm_insert" AFTER INSERT ON "posts" BEGIN INSERT INTO "posts_title_trgm_keys" ("id") VALUES (new."id"); INSERT INTO "posts_title_trgm" (rowid, "value") SELECT (SELECT "key" FROM "posts_title_trgm_keys" WHERE "id" = new."id"), new."title" WHERE new."title" IS NOT NULL; END`,
    `CREATE TRIGGER "posts_title_trgm_delete" AFTER DELETE ON "posts" BEGIN DELETE FROM "posts_title_trgm" WHERE rowid = (SELECT "key" FROM "posts_title_trgm_keys" WHERE "id" = old."id") AND old."title" IS NOT NULL; DELETE FROM "posts_title_trgm_keys" WHERE "id" = old."id"; END`,
    `CREATE TRIGGER "posts_title_trgm_update" AFTER UPDATE OF "title" ON "posts" BEGIN DELETE FROM "posts_title_trgm" WHERE rowid = (SELECT "key" FROM "posts_title_trgm_keys" WHERE "id" = old."id") AND old."title" IS NOT NULL; INSERT INTO "posts_title_trgm" (rowid, "value") SELECT (SELECT "key" FROM "posts_title_trgm_keys" WHERE "id" = new."id"), new."title" WHERE new."title" IS NOT NULL; END`,
    `INSERT INTO "posts_title_trgm_keys" ("id") SELECT "id" FROM "posts"`,
    `INSERT INTO "posts_title_trgm" (rowid, "value") SELECT k."key", t."title" FROM "posts" AS t JOIN "posts_title_trgm_keys" AS k ON k."id" = t."id" WHERE t."title" IS NOT NULL`,
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
    `CREATE TABLE "users" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "email" TEXT COLLATE "C" NOT NULL,
  "name" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE UNIQUE INDEX "users_email_lower_key" ON "users" (lower("email"))`,
    `CREATE TABLE "posts" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "title" TEXT COLLATE "C" NOT NULL,
  "body" TEXT COLLATE "C",
  "status" TEXT COLLATE "C" NOT NULL DEFAULT 'draft',
  "views" BIGINT NOT NULL DEFAULT 0,
  "rating" DOUBLE PRECISION,
  "featured" BOOLEAN NOT NULL DEFAULT FALSE,
  "published_at" TIMESTAMPTZ,
  "author_id" TEXT COLLATE "C" NOT NULL,
  "meta" JSONB,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "posts_author_id_idx" ON "posts" ("author_id", "id")`,
    `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
    `CREATE INDEX "posts_title_trgm" ON "posts" USING gin (lower("title") gin_trgm_ops)`,
    `ALTER TABLE "posts" ADD CONSTRAINT "posts_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users" ("id") ON DELETE CASCADE`,
  ],
};
