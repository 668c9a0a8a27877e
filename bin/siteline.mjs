#!/usr/bin/env node
// The `siteline` command runs the compiled CLI (dist/cli/main.js), as `npm start` runs the compiled
// service: dist/ is built first when src/ changed since the last build (scripts/build.mjs --if-stale,
// the step `npm start` runs), so the CLI needs no TypeScript loader at run time.
import { build } from '../scripts/build.mjs';

try {
  build({ ifStale: true });
} catch (err) {
  process.stderr.write(`siteline: ${err.message}\n`);
  process.exit(1);
}
const { runCli } = await import('../dist/cli/main.js');
runCli();
