import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API_KEY_PREFIX, apiKeyWellFormed, newApiKey } from './api-keys.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

test('new keys: sl_live_ prefix, 46 characters, well formed, all different', () => {
  const keys = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const k = newApiKey();
    assert.ok(k.startsWith(API_KEY_PREFIX));
    assert.equal(k.length, 46);
    assert.ok(apiKeyWellFormed(k), k);
    keys.add(k);
  }
  assert.equal(keys.size, 500);
});

test('the checksum refuses every single-character change, truncation, extension and a foreign prefix', () => {
  for (let n = 0; n < 300; n++) {
    const k = newApiKey();
    const i = API_KEY_PREFIX.length + Math.floor(Math.random() * (k.length - API_KEY_PREFIX.length));
    const other = BASE62[(BASE62.indexOf(k[i]!) + 1 + Math.floor(Math.random() * 61)) % 62]!;
    const changed = k.slice(0, i) + other + k.slice(i + 1);
    assert.notEqual(changed, k);
    assert.equal(apiKeyWellFormed(changed), false, `${k} -> ${changed}`);
    assert.equal(apiKeyWellFormed(k.slice(0, -1)), false);
    assert.equal(apiKeyWellFormed(k + 'A'), false);
    assert.equal(apiKeyWellFormed('sl_test_' + k.slice(API_KEY_PREFIX.length)), false);
  }
  assert.equal(apiKeyWellFormed(''), false);
  assert.equal(apiKeyWellFormed(`${API_KEY_PREFIX}${'-'.repeat(38)}`), false);
});
