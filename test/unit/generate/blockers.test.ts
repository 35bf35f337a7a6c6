import { describe, expect, it } from 'vitest';
import type { OnDelete } from '../../../src/model.js';
import { blockersOf } from '../../../src/generate/blockers.js';
import { api, field, resource } from '../../helpers/model.js';

/** What a blocked delete's 409 names: the refs that restrict it, to the record or to what a cascade deletes with it. */
const ref = (name: string, to: string, onDelete: OnDelete) =>
  field(name, 'ref', { ref: { to, onDelete, as: name.replace(/Id$/, ''), inverse: `${to}Of${name}` } });

const warehouses = resource('warehouses', []);
const bins = resource('bins', [ref('warehouseId', 'warehouses', 'cascade'), ref('parentId', 'bins', 'cascade')]);
const movements = resource('movements', [
  ref('binId', 'bins', 'restrict'),
  ref('warehouseId', 'warehouses', 'setNull'),
]);
const audits = resource('audits', [ref('warehouseId', 'warehouses', 'restrict')]);
const model = api([warehouses, bins, movements, audits]);

describe('blockersOf', () => {
  it.each([
    // direct restrict refs first, then those to the records deleted with it; a self-cascade is walked once
    [warehouses, ['audits.warehouseId', 'movements.binId, to the bins deleted with it']],
    [bins, ['movements.binId']],
    [movements, []],
  ])('%#', (given, want) => expect(blockersOf(model, given)).toEqual(want));
});
