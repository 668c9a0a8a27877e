import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateExpression, isExpression } from './condition-expression.ts';

test('OZFS-style conditions evaluate against the given variables', () => {
  const vars = { res_type: '1_unit', lot_depth: 120, lot_area: 0.2 };
  assert.deepEqual(evaluateExpression("res_type == '1_unit' or res_type == '2_unit'", vars), { ok: true, value: true, usedVars: ['res_type'] });
  assert.equal((evaluateExpression("res_type == 'townhome'", vars) as { value: unknown }).value, false);
  assert.equal((evaluateExpression('0.2 * lot_depth', vars) as { value: unknown }).value, 24);
  assert.equal((evaluateExpression('3 < 2', {}) as { value: unknown }).value, false);
  assert.equal((evaluateExpression('(1 + 2) * 3 >= 9 and not FALSE', {}) as { value: unknown }).value, true);
  assert.equal((evaluateExpression('-lot_area + 1', vars) as { value: number }).value, 0.8);
});

test('prose does not parse; unknown inputs are reported, not guessed', () => {
  assert.equal(isExpression('25 for residential streets, 35 for major streets'), false);
  assert.equal(isExpression('depends on proximity to residential districts'), false);
  assert.deepEqual(evaluateExpression('depends on proximity to residential districts', {}), {
    ok: false,
    reason: 'unparseable',
    detail: 'depends on proximity to residential districts',
  });
  const r = evaluateExpression('floors <= 1', { lot_depth: 100 });
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.reason, 'unknown_variable');
  assert.equal(evaluateExpression('1 / 0', {}).ok, false);
  assert.equal(evaluateExpression("'a' < 2", {}).ok, false);
});

test('a known deciding side settles and/or even when the other side is unknown', () => {
  assert.equal((evaluateExpression('floors > 1 and 3 < 2', {}) as { value: unknown }).value, false);
  assert.equal((evaluateExpression('floors > 1 or 3 > 2', {}) as { value: unknown }).value, true);
  assert.equal(evaluateExpression('floors > 1 and 3 > 2', {}).ok, false);
});
