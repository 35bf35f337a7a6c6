/** What the types' options in the definition format share (zod, the format's one description). */
import * as z from 'zod';
import { patternProblem } from '../patterns.js';

export const FIELD_NAME = /^[a-z][a-zA-Z0-9]*$/;

export const fieldName = z
  .string()
  .regex(FIELD_NAME, { error: 'use camelCase: a lower-case letter, then letters and digits' });

function compilesAsRegExp(pattern: string, ctx: z.RefinementCtx): void {
  const problem = patternProblem(pattern);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
}

export function uniqueStrings(values: string[], ctx: z.RefinementCtx): void {
  values.forEach((value, i) => {
    if (values.indexOf(value) !== i) {
      ctx.addIssue({ code: 'custom', path: [i], message: `"${value}" is listed twice` });
    }
  });
}

const length = z.int().min(0);

/** A string's bounds on its length. */
export const lengths = {
  minLength: length.optional().describe('Minimum length in characters.'),
  maxLength: length.optional().describe('Maximum length in characters.'),
};

/** A regular expression the whole value must match, which must compile. */
export const pattern = z
  .string()
  .superRefine(compilesAsRegExp)
  .optional()
  .describe('A regular expression (JavaScript, unicode mode) the whole value must match.');

/** A default may be null: whether the field may hold it is checked with the rest of its options (values.ts). */
export const nullable = <S extends z.ZodType>(schema: S) => schema.nullable();
