import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger, scrubSecrets } from './logger.ts';

test('error messages and stacks are scrubbed of URL passwords and bearer tokens before logging', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger('info', sink);
  log.error({ err: new Error('connect to postgres://siteline:hunter2@db.internal:5432/app failed; Authorization: Bearer abcdefghijklmnop') }, 'boom');
  log.info({ headers: { authorization: 'Bearer zzzzzzzzzzzz' } }, 'req');
  await new Promise((r) => setImmediate(r));
  const text = lines.join('');
  assert.ok(text.includes('postgres://siteline:[redacted]@db.internal'), text);
  assert.ok(!text.includes('hunter2'));
  assert.ok(!text.includes('abcdefghijklmnop'));
  assert.ok(!text.includes('zzzzzzzzzzzz'));
  assert.equal(scrubSecrets('https://example.org/path'), 'https://example.org/path');
});
