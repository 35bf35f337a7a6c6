// Created by restsmith once. This file is yours: restsmith never overwrites it.

import { notImplemented } from '../http/problem.js';
import type { AppointmentsHandlers } from '../resources/appointments/actions.js';

/**
 * The appointments actions that the definition leaves to code. restsmith created this file once and never
 * rewrites it; when the definition gains such an action, its stub is added here and nothing else is touched.
 * Each handler gets `{ input, caller, store, record, version }` and returns `{ status?, body? }`.
 * The store's patch takes `AppointmentChanges`: the read-only fields too, which only the server writes.
 * The store's replace and patch keep the update rule's `when`, as a client's PUT and PATCH do: give them
 * `{ anyState: true }` (their last argument) to write a record in any state.
 * The store's delete keeps the delete rule's `when`: `{ anyState: true }` (its last argument) deletes in any state.
 */
export const appointmentsHandlers: AppointmentsHandlers = {
  /** Adds the doctor's notes to a done appointment (implemented in the user-owned handler). */
  async addNote(_context) {
    throw notImplemented('POST /api/appointments/:id/add-note');
  },
  /** The free slots of a doctor on one day (implemented in the user-owned handler). */
  async availability(_context) {
    throw notImplemented('GET /api/appointments/availability');
  },
};
