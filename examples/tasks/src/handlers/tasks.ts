// Created by restsmith once. This file is yours: restsmith never overwrites it.

import { notImplemented } from '../http/problem.js';
import type { TasksHandlers } from '../resources/tasks/actions.js';

/**
 * The tasks actions that the definition leaves to code. restsmith created this file once and never
 * rewrites it; when the definition gains such an action, its stub is added here and nothing else is touched.
 * Each handler gets `{ input, caller, store, record, version }` and returns `{ status?, body? }`.
 * The store's patch takes `TaskChanges`: the read-only fields too, which only the server writes.
 */
export const tasksHandlers: TasksHandlers = {
  /** Moves the due date and says why (implemented in the user-owned handler). */
  async reschedule(_context) {
    throw notImplemented('POST /tasks/:id/reschedule');
  },
  /** Creates many tasks at once (implemented in the user-owned handler). */
  async bulkImport(_context) {
    throw notImplemented('POST /tasks/bulk-import');
  },
  /** Counts a project's tasks by status (implemented in the user-owned handler). */
  async summary(_context) {
    throw notImplemented('GET /tasks/summary');
  },
};
