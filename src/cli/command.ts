// The declarative shape of a `siteline` command, its flag parser and its help text. A command is
// data (name, summary, usage, flags) plus run(); a group (e.g. `data`) holds subcommands. main.ts
// handles `-h/--help` before anything runs, so no command ever acts when asked for help.
import { POINT_MISSPELLINGS } from '../core/point-spelling.ts';
import { EXIT } from './exit-codes.ts';
import { err, out, type Io } from './output.ts';

export interface Flag {
  /** Long name without the dashes: `json` for `--json`. */
  name: string;
  /** One letter for `-x`. */
  short?: string;
  /** Placeholder when the flag takes a value (`URL` for `--url URL`); absent for a switch. */
  value?: string;
  /** A value flag that may be given several times: its values are kept in order, joined by a newline. */
  repeatable?: boolean;
  description: string;
}

export type FlagValues = Record<string, string | boolean | undefined>;

export interface CommandInput {
  /** Positional arguments, in order. */
  args: string[];
  flags: FlagValues;
  io: Io;
}

export interface Command {
  /** The word that selects it (`check`, or `import` inside the `data` group). */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** What follows `siteline ` in the usage line, e.g. `check "<address>" [flags]`. */
  usage: string;
  /** Paragraphs shown in the command's help after the usage line. */
  description?: string;
  /** Help text that needs loading (e.g. the list of places), appended to the description. */
  details?(io: Io): Promise<string>;
  flags?: Flag[];
  examples?: string[];
  /** How many positional arguments it accepts (default: none), and what to call them in errors. */
  args?: { min?: number; max?: number; name?: string };
  run?(input: CommandInput): Promise<number>;
  /** A group: `siteline <name> <subcommand>`. */
  subcommands?: Command[];
}

export class UsageError extends Error {}

const HELP_FLAG: Flag = { name: 'help', short: 'h', description: 'Show this help and do nothing else' };
const NO_COLOR_FLAG: Flag = { name: 'no-color', description: 'No colour (also: NO_COLOR=1, or when output is not a terminal)' };
/** Shared flags commands can list. */
export const JSON_FLAG: Flag = { name: 'json', description: 'Print the answer as JSON on stdout (messages stay on stderr)' };
export const URL_FLAG: Flag = {
  name: 'url',
  value: 'URL',
  description: 'The siteline service (default: $SITELINE_URL, else the one you logged in to, else http://localhost:8080)',
};

/** True when `-h`/`--help` appears before a `--`: help wins over everything else on the line. */
export function wantsHelp(argv: string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '-h' || a === '--help' || a.startsWith('--help=')) return true;
  }
  return false;
}

/** Strict parsing: unknown flags, a missing value or the wrong number of arguments are usage errors. */
export function parseArgs(cmd: Command, argv: string[]): { args: string[]; flags: FlagValues } {
  const declared = [...(cmd.flags ?? []), NO_COLOR_FLAG];
  const byLong = new Map(declared.map((f) => [f.name, f]));
  const byShort = new Map(declared.filter((f) => f.short).map((f) => [f.short!, f]));
  const args: string[] = [];
  const flags: FlagValues = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    let flag: Flag | undefined;
    let inline: string | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      inline = eq >= 0 ? a.slice(eq + 1) : undefined;
      flag = byLong.get(name);
      if (!flag) {
        // One spelling of a point on every surface (lat, lng): name the right flag for another one.
        const right = POINT_MISSPELLINGS[name];
        if (right && byLong.has(right)) throw new UsageError(`unknown flag --${name}: a point is given as --lat and --lng (use --${right})`);
        throw new UsageError(`unknown flag --${name}`);
      }
    } else if (a.length > 1 && a.startsWith('-') && !/^-\d/.test(a)) {
      flag = byShort.get(a.slice(1));
      if (!flag) throw new UsageError(`unknown flag ${a}`);
    } else {
      args.push(a);
      continue;
    }
    if (flag.value) {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '' || (inline === undefined && v.startsWith('-') && v.length > 1))
        throw new UsageError(`--${flag.name} needs a value (${flag.value})`);
      const before = flags[flag.name];
      flags[flag.name] = flag.repeatable && typeof before === 'string' ? `${before}\n${v}` : v;
    } else {
      if (inline !== undefined) throw new UsageError(`--${flag.name} takes no value`);
      flags[flag.name] = true;
    }
  }
  const min = cmd.args?.min ?? 0;
  const max = cmd.args?.max ?? 0;
  if (args.length < min) throw new UsageError(`missing ${cmd.args?.name ?? `argument${min === 1 ? '' : 's'}`}`);
  if (args.length > max)
    throw new UsageError(
      max === 0 ? `unexpected argument "${args[0]}"` : `too many arguments (got ${args.length}, at most ${max}): quote an argument that has spaces`,
    );
  return { args, flags };
}

function flagLines(flags: Flag[]): string[] {
  const cells = flags.map((f) => [`${f.short ? `-${f.short}, ` : '    '}--${f.name}${f.value ? ` ${f.value}` : ''}`, f.description] as const);
  const width = Math.max(...cells.map(([l]) => l.length)) + 2;
  return cells.map(([l, d]) => `  ${l.padEnd(width)}${d}`);
}

export function commandList(cmds: Command[]): string[] {
  const width = Math.max(...cmds.map((c) => c.name.length)) + 2;
  return cmds.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
}

/** The help for one command or group; `path` is the words before it (`['data']` for `data import`). */
export async function commandHelp(cmd: Command, path: string[], io: Io): Promise<string> {
  const lines: string[] = [cmd.summary, '', 'Usage:', `  siteline ${cmd.usage}`];
  const details = cmd.details ? await cmd.details(io) : '';
  const about = [cmd.description?.trimEnd(), details.trimEnd()].filter(Boolean).join('\n');
  if (about) lines.push('', about);
  if (cmd.subcommands?.length) {
    lines.push('', 'Commands:', ...commandList(cmd.subcommands));
  }
  lines.push('', 'Flags:', ...flagLines([...(cmd.flags ?? []), NO_COLOR_FLAG, HELP_FLAG]));
  if (cmd.examples?.length) lines.push('', 'Examples:', ...cmd.examples.map((e) => `  ${e}`));
  if (cmd.subcommands?.length) lines.push('', `Run \`siteline ${[...path, cmd.name].join(' ')} <command> --help\` for a command's flags.`);
  return lines.join('\n') + '\n';
}

/** A usage error: the reason and where to find the usage, on stderr; exit 2. */
export function usageFailure(io: Io, path: string[], message: string): number {
  err(io, `${io.errColour.red('error:')} siteline ${path.join(' ')}: ${message}`);
  err(io, `Run \`siteline ${path.join(' ')} --help\` for usage.`);
  return EXIT.usage;
}

export { out, err };
