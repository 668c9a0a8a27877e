// The pure HTTP-rule checks (the endpoint's own behaviour is tested over HTTP in test/mcp-http-rules.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptsJsonAndSse, allowedHostnames, allowedOrigins, hostAllowed, originAllowed } from './http-rules.ts';

test('allowed hostnames: the base URL host, localhost forms only for loopback binds or a localhost base URL', () => {
  const pub = allowedHostnames({ baseUrl: 'https://siteline.example.com', host: '0.0.0.0' });
  assert.deepEqual([...pub], ['siteline.example.com']);
  assert.equal(hostAllowed('siteline.example.com:443', pub), true);
  assert.equal(hostAllowed('localhost:8080', pub), false);
  assert.equal(hostAllowed(undefined, pub), false);
  assert.equal(hostAllowed('bad host', pub), false);
  const behindProxy = allowedHostnames({ baseUrl: 'https://siteline.example.com', host: '127.0.0.1' });
  assert.equal(hostAllowed('127.0.0.1:8080', behindProxy), true);
  const dev = allowedHostnames({ baseUrl: 'http://localhost:8080', host: '0.0.0.0' });
  assert.equal(hostAllowed('127.0.0.1:8080', dev), true);
  assert.equal(hostAllowed('[::1]:8080', dev), true);
  assert.equal(hostAllowed('evil.example.com', dev), false);
});

test('origins: exact scheme+host+port, same-origin with the Host header, "null" refused', () => {
  const allowed = allowedOrigins({ baseUrl: 'https://siteline.example.com', mcpAllowedOrigins: ['https://app.example.org/', 'not a url'] });
  assert.deepEqual([...allowed].sort(), ['https://app.example.org', 'https://siteline.example.com']);
  assert.equal(originAllowed(undefined, allowed), true);
  assert.equal(originAllowed('', allowed), true);
  assert.equal(originAllowed('https://app.example.org', allowed), true);
  assert.equal(originAllowed('http://app.example.org', allowed), false);
  assert.equal(originAllowed('https://app.example.org:444', allowed), false);
  assert.equal(originAllowed('null', allowed), false);
  // Same-origin with the request: on an https deployment only over https (issue 13: an http Origin is refused).
  assert.equal(originAllowed('http://127.0.0.1:8080', allowed, '127.0.0.1:8080'), false);
  assert.equal(originAllowed('https://127.0.0.1:8080', allowed, '127.0.0.1:8080'), true);
  const plain = allowedOrigins({ baseUrl: 'http://localhost:8080', mcpAllowedOrigins: [] });
  assert.equal(originAllowed('http://127.0.0.1:8080', plain, '127.0.0.1:8080'), true, 'an http deployment accepts its own host over http');
  assert.equal(originAllowed('http://127.0.0.1:9090', allowed, '127.0.0.1:8080'), false);
  assert.equal(originAllowed('file://x', allowed, 'x'), false);
});

test('Accept must list both media types; parameters and order do not matter', () => {
  assert.equal(acceptsJsonAndSse('application/json, text/event-stream'), true);
  assert.equal(acceptsJsonAndSse('text/event-stream;q=0.5,application/json;q=1'), true);
  assert.equal(acceptsJsonAndSse('application/json'), false);
  assert.equal(acceptsJsonAndSse('*/*'), false);
  assert.equal(acceptsJsonAndSse(undefined), false);
});
