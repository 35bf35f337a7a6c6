// Migration written by restsmith from library.yaml. Applied once, at start or by npm run migrate; never edit a migration that has run.

import type { MigrationSql } from './index.js';

/**
 * Migration 0001-initial:
 * - create the table of authors
 * - create the table of books
 * - create the table of reviews
 * - create the table of reading-lists
 * - create the table of list-entries
 * - create the table of tags
 * - create the table of book-tags
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
    `CREATE TABLE "authors" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "full_name" TEXT NOT NULL,
  "country" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE VIRTUAL TABLE "authors_full_name_trgm" USING fts5("value", content='', contentless_delete=1, tokenize='trigram case_sensitive 0 remove_diacritics 0')`,
    `CREATE TABLE "authors_full_name_trgm_keys" ("key" INTEGER PRIMARY KEY, "id" TEXT NOT NULL UNIQUE)`,
    `CREATE TRIGGER "authors_full_name_trgm_insert" AFTER INSERT ON "authors" BEGIN INSERT INTO "authors_full_name_trgm_keys" ("id") VALUES (new."id"); INSERT INTO "authors_full_name_trgm" (rowid, "value") SELECT (SELECT "key" FROM "authors_full_name_trgm_keys" WHERE "id" = new."id"), new."full_name" WHERE new."full_name" IS NOT NULL; END`,
    `CREATE TRIGGER "authors_full_name_trgm_delete" AFTER DELETE ON "authors" BEGIN DELETE FROM "authors_full_name_trgm" WHERE rowid = (SELECT "key" FROM "authors_full_name_trgm_keys" WHERE "id" = old."id") AND old."full_name" IS NOT NULL; DELETE FROM "authors_full_name_trgm_keys" WHERE "id" = old."id"; END`,
    `CREATE TRIGGER "authors_full_name_trgm_update" AFTER UPDATE OF "full_name" ON "authors" BEGIN DELETE FROM "authors_full_name_trgm" WHERE rowid = (SELECT "key" FROM "authors_full_name_trgm_keys" WHERE "id" = old."id") AND old."full_name" IS NOT NULL; INSERT INTO "authors_full_name_trgm" (rowid, "value") SELECT (SELECT "key" FROM "authors_full_name_trgm_keys" WHERE "id" = new."id"), new."full_name" WHERE new."full_name" IS NOT NULL; END`,
    `INSERT INTO "authors_full_name_trgm_keys" ("id") SELECT "id" FROM "authors"`,
    `INSERT INTO "authors_full_name_trgm" (rowid, "value") SELECT k."key", t."full_name" FROM "authors" AS t JOIN "authors_full_name_trgm_keys" AS k ON k."id" = t."id" WHERE t."full_name" IS NOT NULL`,
    `CREATE TABLE "books" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "title" TEXT NOT NULL,
  "year" INTEGER,
  "author_id" TEXT NOT NULL REFERENCES "authors" ("id") ON DELETE RESTRICT,
  "editor_id" TEXT REFERENCES "authors" ("id") ON DELETE SET NULL,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "books_author_id_idx" ON "books" ("author_id", "id")`,
    `CREATE INDEX "books_editor_id_idx" ON "books" ("editor_id", "id")`,
    `CREATE TABLE "reviews" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "book_id" TEXT NOT NULL REFERENCES "books" ("id") ON DELETE CASCADE,
  "reader_id" TEXT,
  "stars" INTEGER NOT NULL,
  "text" TEXT,
  "draft_notes" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "reviews_book_id_idx" ON "reviews" ("book_id", "id")`,
    `CREATE INDEX "reviews_reader_id_idx" ON "reviews" ("reader_id", "id")`,
    `CREATE TABLE "reading_lists" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "name" TEXT NOT NULL,
  "reader_id" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "reading_lists_reader_id_idx" ON "reading_lists" ("reader_id", "id")`,
    `CREATE TABLE "list_entries" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "reading_list_id" TEXT NOT NULL REFERENCES "reading_lists" ("id") ON DELETE CASCADE,
  "book_id" TEXT NOT NULL REFERENCES "books" ("id") ON DELETE CASCADE,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "list_entries_reading_list_id_idx" ON "list_entries" ("reading_list_id", "id")`,
    `CREATE INDEX "list_entries_book_id_idx" ON "list_entries" ("book_id", "id")`,
    `CREATE TABLE "tags" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "name" TEXT NOT NULL,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE UNIQUE INDEX "tags_name_key" ON "tags" ("name")`,
    `CREATE TABLE "book_tags" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "book_id" TEXT NOT NULL REFERENCES "books" ("id") ON DELETE CASCADE,
  "tag_id" TEXT NOT NULL REFERENCES "tags" ("id") ON DELETE CASCADE,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "book_tags_book_id_idx" ON "book_tags" ("book_id", "id")`,
    `CREATE INDEX "book_tags_tag_id_idx" ON "book_tags" ("tag_id", "id")`,
    `CREATE UNIQUE INDEX "book_tags_book_id_tag_id_key" ON "book_tags" ("book_id", "tag_id")`,
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
    `CREATE TABLE "authors" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "full_name" TEXT COLLATE "C" NOT NULL,
  "country" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
    `CREATE INDEX "authors_full_name_trgm" ON "authors" USING gin (lower("full_name") gin_trgm_ops)`,
    `CREATE TABLE "books" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "title" TEXT COLLATE "C" NOT NULL,
  "year" BIGINT,
  "author_id" TEXT COLLATE "C" NOT NULL,
  "editor_id" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "books_author_id_idx" ON "books" ("author_id", "id")`,
    `CREATE INDEX "books_editor_id_idx" ON "books" ("editor_id", "id")`,
    `CREATE TABLE "reviews" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "book_id" TEXT COLLATE "C" NOT NULL,
  "reader_id" TEXT COLLATE "C",
  "stars" BIGINT NOT NULL,
  "text" TEXT COLLATE "C",
  "draft_notes" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "reviews_book_id_idx" ON "reviews" ("book_id", "id")`,
    `CREATE INDEX "reviews_reader_id_idx" ON "reviews" ("reader_id", "id")`,
    `CREATE TABLE "reading_lists" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "name" TEXT COLLATE "C" NOT NULL,
  "reader_id" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "reading_lists_reader_id_idx" ON "reading_lists" ("reader_id", "id")`,
    `CREATE TABLE "list_entries" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "reading_list_id" TEXT COLLATE "C" NOT NULL,
  "book_id" TEXT COLLATE "C" NOT NULL,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "list_entries_reading_list_id_idx" ON "list_entries" ("reading_list_id", "id")`,
    `CREATE INDEX "list_entries_book_id_idx" ON "list_entries" ("book_id", "id")`,
    `CREATE TABLE "tags" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "name" TEXT COLLATE "C" NOT NULL,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE UNIQUE INDEX "tags_name_key" ON "tags" ("name")`,
    `CREATE TABLE "book_tags" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "book_id" TEXT COLLATE "C" NOT NULL,
  "tag_id" TEXT COLLATE "C" NOT NULL,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "book_tags_book_id_idx" ON "book_tags" ("book_id", "id")`,
    `CREATE INDEX "book_tags_tag_id_idx" ON "book_tags" ("tag_id", "id")`,
    `CREATE UNIQUE INDEX "book_tags_book_id_tag_id_key" ON "book_tags" ("book_id", "tag_id")`,
    `ALTER TABLE "books" ADD CONSTRAINT "books_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "authors" ("id") ON DELETE RESTRICT`,
    `ALTER TABLE "books" ADD CONSTRAINT "books_editor_id_fkey" FOREIGN KEY ("editor_id") REFERENCES "authors" ("id") ON DELETE SET NULL`,
    `ALTER TABLE "reviews" ADD CONSTRAINT "reviews_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "books" ("id") ON DELETE CASCADE`,
    `ALTER TABLE "list_entries" ADD CONSTRAINT "list_entries_reading_list_id_fkey" FOREIGN KEY ("reading_list_id") REFERENCES "reading_lists" ("id") ON DELETE CASCADE`,
    `ALTER TABLE "list_entries" ADD CONSTRAINT "list_entries_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "books" ("id") ON DELETE CASCADE`,
    `ALTER TABLE "book_tags" ADD CONSTRAINT "book_tags_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "books" ("id") ON DELETE CASCADE`,
    `ALTER TABLE "book_tags" ADD CONSTRAINT "book_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags" ("id") ON DELETE CASCADE`,
  ],
};
