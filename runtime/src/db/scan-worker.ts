/**
 * A worker thread of scan-workers.ts: one read-only connection to the server's SQLite file (WAL: its reads never
 * block the server's writes, nor wait for them), on which it runs the listing statements that scan, one at a time,
 * and answers each with its rows as arrays of column values (the server makes them objects, as it does its own).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Driver from 'better-sqlite3';
import { setBounded } from '../bounded.js';
import type { SqlValue } from './database.js';
import { MMAP_BYTES } from './sqlite.js';

export interface ScanRequest {
  id: number;
  text: string;
  params: SqlValue[];
}

export type ScanAnswer =
  { id: number; rows: SqlValue[][] } | { id: number; error: { message: string; code: string | undefined } };

/** statements prepared here, by text: at most as many as a listing keeps (see http/listing.ts) */
const MAX_STATEMENTS = 256;

const port = parentPort;
if (port !== null) {
  const db = new Driver((workerData as { file: string }).file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  const statements = new Map<string, Driver.Statement<SqlValue[], SqlValue[]>>();
  port.on('message', ({ id, text, params }: ScanRequest) => {
    let answer: ScanAnswer;
    try {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = db.prepare<SqlValue[], SqlValue[]>(text).raw(true);
        setBounded(statements, text, statement, MAX_STATEMENTS);
      }
      answer = { id, rows: statement.all(...params) };
    } catch (error) {
      const { message, code } = error as { message: string; code?: string };
      answer = { id, error: { message, code } };
    }
    port.postMessage(answer);
  });
}
