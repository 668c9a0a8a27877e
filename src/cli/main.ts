// `siteline <command>`: each command lives in its own module and returns an exit code.
// Exit codes: 0 ok/answered, 1 unexpected failure, 2 bad input/usage, 3 not covered, 4 auth needed.
const USAGE = `siteline <command>

Commands:
  check "<address>" [--json]     Site snapshot for one address (exit 0 answered, 3 not covered, 2 bad input)
  data import <place> [--from DIR]  Import a place's sources into the database
  data status                    Places, coverage and the last import of each
  feedback list [--json]         Feedback users sent (staff; reads the local database)
  login [--email E]              Link this machine to your siteline account
  whoami                         Who the stored identity is
  logout                         Revoke and forget the stored identity
`;

type CommandModule = { run(argv: string[]): Promise<number> };

const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  check: () => import('./check-command.ts'),
  data: () => import('./data-command.ts'),
  credits: () => import('./credits-command.ts'),
  keys: () => import('./keys-command.ts'),
  feedback: () => import('./feedback-command.ts'),
  login: () => import('./auth-commands.ts').then((m) => ({ run: m.login })),
  whoami: () => import('./auth-commands.ts').then((m) => ({ run: m.whoami })),
  logout: () => import('./auth-commands.ts').then((m) => ({ run: m.logout })),
  worker: () => import('./worker-command.ts'),
};

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(USAGE);
    return cmd ? 0 : 2;
  }
  const load = COMMANDS[cmd];
  if (!load) {
    process.stderr.write(`Unknown command "${cmd}".\n\n${USAGE}`);
    return 2;
  }
  const mod = await load();
  return mod.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`siteline: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
