// Owners' columns told by header (whole or cut to 10 characters by a .dbf) and by values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPersonalColumn, isPersonalHeader, valuesLookPersonal, withoutPersonal } from './personal-columns.ts';

test('personal columns: cut headers, and values that name owners under any header', () => {
  for (const h of ['OWNER', 'Owner_Name', 'Property_O', 'PROP_OWNER', 'OWN_ADDR', 'TAXPAYER_N', 'MAIL_ADDR', 'CO_OWN']) assert.ok(isPersonalHeader(h), h);
  for (const h of ['PIN', 'ZONE', 'ZONE_NAME', 'FULL_ADDRESS', 'TOWN', 'ACRES', 'Zoning', 'LAND_USE']) assert.ok(!isPersonalHeader(h), h);
  const owners = [
    'SMITH JOHN & MARY',
    'ELM STREET REALTY TRUST',
    'ACME HOLDINGS LLC',
    "O'BRIEN PATRICK ETAL",
    'NGUYEN ANNA',
    'KOWALSKI JAN',
    'BAYVIEW INC',
    'GARCIA MARIA',
  ];
  assert.ok(valuesLookPersonal(owners));
  assert.ok(isPersonalColumn('FIELD_7', owners), 'by values under a header no list names');
  assert.ok(!valuesLookPersonal(['ELM ST', 'OAK AVE', 'MILL RD', 'MAIN ST']), 'street names');
  assert.ok(!valuesLookPersonal(['Residence A', 'Residence B', 'Business & Industry', 'Office 2']), 'district names (one "&")');
  assert.ok(!valuesLookPersonal(['R-1', 'B-2', 'C-3', 'TR']), 'district codes');
  assert.ok(!valuesLookPersonal(['12 ELM ST', '14 ELM ST', '3 OAK AVE']), 'addresses');
  assert.deepEqual(withoutPersonal({ ZONE: '', Property_O: 'SMITH JOHN', NOTE: 'ACME LLC', ID: 7 }, new Set()), { ZONE: '', ID: 7 });
});
