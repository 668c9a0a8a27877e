// `siteline <command>`: finds the command in the table (commands.ts), answers -h/--help before
// anything runs, parses flags strictly, runs it, and maps failures to the documented exit codes.
import { commandHelp, commandList, parseArgs, UsageError, usageFailure, wantsHelp, type Command } from './command.ts';
import { COMMANDS } from './commands.ts';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.ts';
import { colourWanted, err, out, palette, type Io } from './output.ts';
import { AuthNeededError, ServiceError, ServiceUnreachableError } from './service-client.ts';
import { cliVersion } from './version.ts';

function topHelp(): string {
  return `siteline: sourced site intelligence (lot, zoning, building envelope) for one street address.

Usage:
  siteline <command> [flags]

Commands:
${commandList(COMMANDS).join('\n')}

Flags:
  -h, --help      Show help for siteline or any command (it never runs the command)
      --version   Print the version
      --no-color  No colour (also NO_COLOR=1; never when output is not a terminal)

Environment:
  SITELINE_URL         the service to talk to (default: the one you logged in to, else http://localhost:8080)
  SITELINE_CONFIG_DIR  where the login is stored (default: $XDG_CONFIG_HOME/siteline or ~/.config/siteline)
  NO_COLOR             no colour

${EXIT_CODES_HELP}
Run \`siteline <command> --help\` for a command's flags. More: docs/cli.md.
`;
}

async function main(argv: string[], io: Io): Promise<number> {
  const [first] = argv;
  if (first === '--version' || first === 'version') return (out(io, `siteline ${cliVersion()}`), EXIT.ok);
  if (first === undefined || first === '-h' || first === '--help') return (out(io, topHelp()), EXIT.ok);
  if (first === 'help') return main([...argv.slice(1), '--help'], io);
  if (first.startsWith('-') && argv.every((a) => a.startsWith('-'))) {
    if (wantsHelp(argv)) return (out(io, topHelp()), EXIT.ok);
    return usageFailure(io, [], `unknown flag ${first}`);
  }

  // Walk the table: a group consumes the next word as its subcommand.
  const path: string[] = [];
  let list = COMMANDS;
  let cmd: Command | undefined;
  let rest = argv;
  for (;;) {
    const word = rest[0];
    const next = word === undefined ? undefined : list.find((c) => c.name === word);
    if (!next) {
      if (cmd && (word === undefined || word.startsWith('-'))) break; // a group with no subcommand: its help
      const where = path.length ? `siteline ${path.join(' ')}` : 'siteline';
      if (wantsHelp(rest) && cmd) return (out(io, await commandHelp(cmd, path.slice(0, -1), io)), EXIT.ok);
      err(io, `${io.errColour.red('error:')} unknown ${cmd ? 'subcommand' : 'command'} "${word}" for ${where}.\n`);
      err(io, `Commands:\n${commandList(list).join('\n')}\n\nRun \`${where} --help\` for usage.`);
      return EXIT.usage;
    }
    cmd = next;
    path.push(next.name);
    rest = rest.slice(1);
    if (!next.subcommands) break;
    list = next.subcommands;
  }

  if (!cmd.run && rest.length && !wantsHelp(rest)) return usageFailure(io, path, `unknown flag ${rest[0]}`);
  if (wantsHelp(rest) || !cmd.run) {
    out(io, await commandHelp(cmd, path.slice(0, -1), io));
    return EXIT.ok;
  }
  let parsed;
  try {
    parsed = parseArgs(cmd, rest);
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(io, path, e.message);
    throw e;
  }
  if (parsed.flags['no-color']) {
    io.colour = palette(false);
    io.errColour = palette(false);
  }
  try {
    return await cmd.run({ ...parsed, io });
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(io, path, e.message);
    if (e instanceof AuthNeededError) return (err(io, `${io.errColour.red('error:')} ${e.message}`), EXIT.authNeeded);
    if (e instanceof ServiceUnreachableError) return (err(io, `${io.errColour.red('error:')} ${e.message}`), EXIT.unreachable);
    if (e instanceof ServiceError && e.code === 'bad_url') return usageFailure(io, path, e.message);
    if (e instanceof ServiceError) return (err(io, `${io.errColour.red('error:')} ${e.message}`), EXIT.failure);
    throw e;
  }
}

/** The process entry (bin/siteline.mjs). */
export function runCli(): void {
  const argv = process.argv.slice(2);
  const noColorFlag = argv.includes('--no-color');
  const io: Io = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    colour: palette(colourWanted(process.stdout, process.env, noColorFlag)),
    errColour: palette(colourWanted(process.stderr, process.env, noColorFlag)),
  };
  // `siteline check ... | head -1`: a reader that stops early is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  main(argv, io).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      err(io, `${io.errColour.red('error:')} siteline: ${e instanceof Error ? e.message : String(e)}`);
      process.exitCode = EXIT.failure;
    },
  );
}
