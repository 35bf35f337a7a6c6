import { describe, expect, it } from 'vitest';
import { carryOver, type Renaming } from '../../../src/pipeline/user-files.js';

/** doctors renamed to physicians: what its handlers file becomes under the new name (renamed-user-files.ts). */
const RENAMING: Renaming = {
  variable: ['doctorsHandlers', 'physiciansHandlers'],
  folder: ['../resources/doctors', '../resources/physicians'],
  prefixes: [
    ['Doctors', 'Physicians'],
    ['doctors', 'physicians'],
    ['Doctor', 'Physician'],
  ],
};

const HEAD = "import type { DoctorsHandlers } from '../resources/doctors/actions.js';\n";

describe('carrying a user file over to a renamed resource', () => {
  it.each([
    {
      given: `${HEAD}export const doctorsHandlers: DoctorsHandlers = {\n  async go() {\n    return { body: 1 };\n  },\n};\n`,
      want: "import type { PhysiciansHandlers } from '../resources/physicians/actions.js';\nexport const physiciansHandlers: PhysiciansHandlers = {\n  async go() {\n    return { body: 1 };\n  },\n};\n",
    },
    {
      // every use of an imported name follows it; an alias is kept, its import renamed; other imports untouched
      given:
        "import type { Doctor, DoctorInput as In } from '../resources/doctors/model.js';\nimport { access } from '../resources/doctors/access.js';\nimport { notImplemented } from '../http/problem.js';\n" +
        'export const doctorsHandlers = { go(d: Doctor, i: In) { return [d, i, access, notImplemented, doctorsHandlers]; } };\n',
      want:
        "import type { Physician, PhysicianInput as In } from '../resources/physicians/model.js';\nimport { access } from '../resources/physicians/access.js';\nimport { notImplemented } from '../http/problem.js';\n" +
        'export const physiciansHandlers = { go(d: Physician, i: In) { return [d, i, access, notImplemented, physiciansHandlers]; } };\n',
    },
  ])('renames the object, the imports of the generated files and their uses', ({ given, want }) => {
    expect(carryOver(given, RENAMING)).toEqual({ kind: 'carried', text: want });
  });

  it.each([
    { given: `${HEAD}export const doctorsHandlers = {`, reason: /does not parse/ },
    { given: `${HEAD}export const handlers: DoctorsHandlers = {};\n`, reason: /no `export const doctorsHandlers`/ },
    {
      given: "import * as m from '../resources/doctors/model.js';\nexport const doctorsHandlers = {} as m.X;\n",
      reason: /imports \.\.\/resources\/doctors\/model\.js other than by names/,
    },
    {
      given: `${HEAD}const Physician = 1;\nexport const doctorsHandlers: DoctorsHandlers = { Physician } as never;\nimport type { Doctor } from '../resources/doctors/model.js';\n`,
      reason: /already uses the name Physician/,
    },
    {
      given: "export const doctorsHandlers: import('../resources/doctors/actions.js').DoctorsHandlers = {};\n",
      reason: /names \.\.\/resources\/doctors where restsmith cannot follow it/,
    },
  ])('is unsafe when it cannot be done: $reason', ({ given, reason }) => {
    const carried = carryOver(given, RENAMING);
    expect(carried.kind).toBe('unsafe');
    expect(carried.kind === 'unsafe' ? carried.reason : '').toMatch(reason);
  });
});
