#!/usr/bin/env node
// The `siteline` command: registers the TypeScript loader, then runs the CLI.
import { register } from 'tsx/esm/api';
register();
const { runCli } = await import('../src/cli/main.ts');
runCli();
