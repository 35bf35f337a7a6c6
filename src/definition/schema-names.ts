/** The names of the definition format and the maps keyed by them: what every part of the schema (schema.ts) shares. */
import * as z from 'zod';

export const API_NAME = /^[a-z][a-z0-9-]*$/;
export const RESOURCE_NAME = /^[a-z][a-z0-9-]*$/;
export const ACTION_NAME = /^[a-z][a-z0-9-]*$/;
export const ROLE_NAME = /^[A-Za-z][A-Za-z0-9_.:-]*$/;
/** `/api/v1`: segments of unreserved URL characters, no trailing slash. */
export const PREFIX = /^(\/[A-Za-z0-9._~-]+)+$/;

export const ROLE_ERROR = { error: 'use letters, digits, _ . : and -, starting with a letter' };

export const kebabName = () =>
  z.string().regex(RESOURCE_NAME, {
    error: "use lower-case letters, digits and '-', starting with a letter",
  });

/**
 * A map keyed by names: a key that is not a valid name is reported at the key, and its value is checked all the
 * same (zod's own record skips the value of a bad key: its problems would show only once the name is fixed).
 */
export function namedMap<V extends z.ZodType>(name: z.ZodString, value: V) {
  return z.record(z.string(), value).superRefine(
    (map: unknown, ctx) => {
      // it runs even when the value is not a map at all (zod said so already)
      if (typeof map !== 'object' || map === null || Array.isArray(map)) return;
      for (const key of Object.keys(map)) {
        const result = name.safeParse(key);
        if (!result.success) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: result.error.issues[0]?.message ?? 'not a valid name',
            params: { key: true },
          });
        }
      }
    },
    { when: () => true },
  );
}

export function noDuplicates(values: readonly string[], ctx: z.RefinementCtx): void {
  values.forEach((value, i) => {
    if (values.indexOf(value) !== i) {
      ctx.addIssue({ code: 'custom', path: [i], message: `"${value}" is listed twice` });
    }
  });
}
