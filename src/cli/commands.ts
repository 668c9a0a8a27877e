// Every `siteline` command, in the order `siteline --help` lists them. To add one: write
// src/cli/<name>-command.ts exporting a Command (see command.ts) and add one line here.
import type { Command } from './command.ts';
import { checkCommand } from './check-command.ts';
import { projectsCommand } from './projects-command.ts';
import { keysCommand } from './keys-command.ts';
import { usageCommand } from './usage-command.ts';
import { dataCommand } from './data-command.ts';
import { dataAuditCommand } from './data-audit-command.ts';
import { loginCommand, logoutCommand, whoamiCommand } from './auth-commands.ts';
import { workerCommand } from './worker-command.ts';
import { creditsCommand } from './credits-command.ts';
import { feedbackCommand } from './feedback-command.ts';
import { staffCommand } from './staff-command.ts';
import { rulesCommand } from './rules-command.ts';

export const COMMANDS: Command[] = [
  checkCommand,
  projectsCommand,
  keysCommand,
  usageCommand,
  { ...dataCommand, subcommands: [...(dataCommand.subcommands ?? []), dataAuditCommand] },
  rulesCommand,
  loginCommand,
  whoamiCommand,
  logoutCommand,
  workerCommand,
  creditsCommand,
  feedbackCommand,
  staffCommand,
];
