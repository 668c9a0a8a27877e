// Every `siteline` command, in the order `siteline --help` lists them. To add one: write
// src/cli/<name>-command.ts exporting a Command (see command.ts) and add one line here.
import type { Command } from './command.ts';
import { checkCommand } from './check-command.ts';
import { dataCommand } from './data-command.ts';
import { loginCommand, logoutCommand, whoamiCommand } from './auth-commands.ts';

export const COMMANDS: Command[] = [
  checkCommand,
  dataCommand,
  loginCommand,
  whoamiCommand,
  logoutCommand,
];
