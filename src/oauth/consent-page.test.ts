// Which origin the consent form may end at: exactly the redirect URI's, in a form CSP can express.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formActionSource } from './consent-page.ts';

test('formActionSource: the redirect origin for http(s), the scheme for private-use URIs, nothing otherwise', () => {
  assert.equal(formActionSource('http://127.0.0.1:5678/callback?x=1'), 'http://127.0.0.1:5678');
  assert.equal(formActionSource('http://localhost:33418/'), 'http://localhost:33418');
  assert.equal(formActionSource('https://claude.ai/api/mcp/auth_callback'), 'https://claude.ai');
  assert.equal(formActionSource('https://Example.COM:443/cb'), 'https://example.com');
  assert.equal(formActionSource('cursor://anysphere.cursor-retrieval/oauth/user-siteline/callback'), 'cursor:');
  assert.equal(formActionSource('com.example.app:/oauth2redirect'), 'com.example.app:');
  // CSP has no syntax for IPv6 literals: no source (the consent POST then answers with a page that navigates on).
  assert.equal(formActionSource('http://[::1]:8080/cb'), undefined);
  assert.equal(formActionSource('javascript:alert(1)'), undefined);
  assert.equal(formActionSource('data:text/html,x'), undefined);
  assert.equal(formActionSource('not a url'), undefined);
  assert.equal(formActionSource(undefined), undefined);
});
