// Migration written by restsmith from clinic.yaml. Applied once, at start or by npm run migrate; never edit a migration that has run.

import type { MigrationSql } from './index.js';

/**
 * Migration 0001-initial:
 * - create the table of patients
 * - create the table of doctors
 * - create the table of appointments
 * - create the table of prescriptions
 * - create the event log (events)
 * - create the tables of webhooks and their deliveries
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
    `CREATE TABLE "patients" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "name" TEXT NOT NULL,
  "birth_date" TEXT NOT NULL,
  "phone" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE TABLE "doctors" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "name" TEXT NOT NULL,
  "specialty" TEXT NOT NULL,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE TABLE "appointments" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "patient_id" TEXT NOT NULL REFERENCES "patients" ("id") ON DELETE CASCADE,
  "doctor_id" TEXT NOT NULL REFERENCES "doctors" ("id") ON DELETE RESTRICT,
  "starts_at" TEXT NOT NULL,
  "reason" TEXT,
  "notes" TEXT,
  "status" TEXT NOT NULL DEFAULT 'booked',
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "appointments_patient_id_idx" ON "appointments" ("patient_id", "id")`,
    `CREATE INDEX "appointments_doctor_id_idx" ON "appointments" ("doctor_id", "id")`,
    `CREATE INDEX "appointments_starts_at_idx" ON "appointments" ("starts_at", "id")`,
    `CREATE TABLE "prescriptions" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "patient_id" TEXT NOT NULL REFERENCES "patients" ("id") ON DELETE CASCADE,
  "doctor_id" TEXT NOT NULL REFERENCES "doctors" ("id") ON DELETE RESTRICT,
  "drug" TEXT NOT NULL,
  "dosage" TEXT NOT NULL,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "version" INTEGER NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "prescriptions_patient_id_idx" ON "prescriptions" ("patient_id", "id")`,
    `CREATE INDEX "prescriptions_doctor_id_idx" ON "prescriptions" ("doctor_id", "id")`,
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
    `CREATE TABLE IF NOT EXISTS "restsmith_webhooks" (
  "id" TEXT PRIMARY KEY,
  "url" TEXT NOT NULL,
  "types" TEXT,
  "description" TEXT,
  "enabled" INTEGER NOT NULL DEFAULT 1,
  "secret" TEXT NOT NULL,
  "cursor" INTEGER NOT NULL,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS "restsmith_deliveries" (
  "webhook_id" TEXT NOT NULL REFERENCES "restsmith_webhooks" ("id") ON DELETE CASCADE,
  "seq" INTEGER NOT NULL,
  "type" TEXT NOT NULL,
  "event" TEXT NOT NULL,
  "status" TEXT NOT NULL,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "last_status" INTEGER,
  "last_error" TEXT,
  "next_attempt_at" TEXT,
  "claimed_until" TEXT,
  "claimed_by" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  PRIMARY KEY ("webhook_id", "seq")
)`,
    `CREATE INDEX IF NOT EXISTS "restsmith_deliveries_due_idx" ON "restsmith_deliveries" ("status", "next_attempt_at")`,
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
    `CREATE TABLE "patients" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "name" TEXT COLLATE "C" NOT NULL,
  "birth_date" TEXT COLLATE "C" NOT NULL,
  "phone" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE TABLE "doctors" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "name" TEXT COLLATE "C" NOT NULL,
  "specialty" TEXT COLLATE "C" NOT NULL,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE TABLE "appointments" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "patient_id" TEXT COLLATE "C" NOT NULL,
  "doctor_id" TEXT COLLATE "C" NOT NULL,
  "starts_at" TIMESTAMPTZ NOT NULL,
  "reason" TEXT COLLATE "C",
  "notes" TEXT COLLATE "C",
  "status" TEXT COLLATE "C" NOT NULL DEFAULT 'booked',
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "appointments_patient_id_idx" ON "appointments" ("patient_id", "id")`,
    `CREATE INDEX "appointments_doctor_id_idx" ON "appointments" ("doctor_id", "id")`,
    `CREATE INDEX "appointments_starts_at_idx" ON "appointments" ("starts_at", "id")`,
    `CREATE TABLE "prescriptions" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "patient_id" TEXT COLLATE "C" NOT NULL,
  "doctor_id" TEXT COLLATE "C" NOT NULL,
  "drug" TEXT COLLATE "C" NOT NULL,
  "dosage" TEXT COLLATE "C" NOT NULL,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "version" BIGINT NOT NULL DEFAULT 1
)`,
    `CREATE INDEX "prescriptions_patient_id_idx" ON "prescriptions" ("patient_id", "id")`,
    `CREATE INDEX "prescriptions_doctor_id_idx" ON "prescriptions" ("doctor_id", "id")`,
    `ALTER TABLE "appointments" ADD CONSTRAINT "appointments_patient_id_fkey" FOREIGN KEY ("patient_id") REFERENCES "patients" ("id") ON DELETE CASCADE`,
    `ALTER TABLE "appointments" ADD CONSTRAINT "appointments_doctor_id_fkey" FOREIGN KEY ("doctor_id") REFERENCES "doctors" ("id") ON DELETE RESTRICT`,
    `ALTER TABLE "prescriptions" ADD CONSTRAINT "prescriptions_patient_id_fkey" FOREIGN KEY ("patient_id") REFERENCES "patients" ("id") ON DELETE CASCADE`,
    `ALTER TABLE "prescriptions" ADD CONSTRAINT "prescriptions_doctor_id_fkey" FOREIGN KEY ("doctor_id") REFERENCES "doctors" ("id") ON DELETE RESTRICT`,
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
    `CREATE TABLE IF NOT EXISTS "restsmith_webhooks" (
  "id" TEXT COLLATE "C" PRIMARY KEY,
  "url" TEXT NOT NULL,
  "types" TEXT,
  "description" TEXT,
  "enabled" INTEGER NOT NULL DEFAULT 1,
  "secret" TEXT NOT NULL,
  "cursor" BIGINT NOT NULL,
  "created_at" TEXT COLLATE "C" NOT NULL,
  "updated_at" TEXT COLLATE "C" NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS "restsmith_deliveries" (
  "webhook_id" TEXT COLLATE "C" NOT NULL REFERENCES "restsmith_webhooks" ("id") ON DELETE CASCADE,
  "seq" BIGINT NOT NULL,
  "type" TEXT COLLATE "C" NOT NULL,
  "event" TEXT NOT NULL,
  "status" TEXT COLLATE "C" NOT NULL,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "last_status" INTEGER,
  "last_error" TEXT,
  "next_attempt_at" TEXT COLLATE "C",
  "claimed_until" TEXT COLLATE "C",
  "claimed_by" TEXT COLLATE "C",
  "created_at" TEXT COLLATE "C" NOT NULL,
  "updated_at" TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY ("webhook_id", "seq")
)`,
    `CREATE INDEX IF NOT EXISTS "restsmith_deliveries_due_idx" ON "restsmith_deliveries" ("status", "next_attempt_at")`,
  ],
};
