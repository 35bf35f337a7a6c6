// Created by restsmith once. This file is yours: restsmith never overwrites it.

import { notImplemented } from '../http/problem.js';
import type { PostsHandlers } from '../resources/posts/actions.js';

/**
 * The posts actions that the definition leaves to code. restsmith created this file once and never
 * rewrites it; when the definition gains such an action, its stub is added here and nothing else is touched.
 * Each handler gets `{ input, caller, store }` and returns `{ status?, body? }`.
 * The store's patch takes `PostChanges`: the read-only fields too, which only the server writes.
 */
export const postsHandlers: PostsHandlers = {
  /** POST /posts/import */
  async import(_context) {
    throw notImplemented('POST /api/v1/posts/import');
  },
};
