// A process started through npm (`npx siteline worker`: npm -> `sh -c` -> node) has a shell between it
// and the process the operator signals: npm passes SIGTERM to that shell, which dies of it without
// passing it on, and node would run on as an orphan (still serving, its port taken). `npm start` execs
// node from its script (package.json), so npm's SIGTERM reaches node itself; `npx` builds the shell
// command itself, so there the only sign is that the parent is gone. While a process runs under npm
// (npm sets npm_lifecycle_event for scripts and npx), this watch treats the loss of its parent as SIGTERM.
// Where the parent is such a shell, the process that started the shell (npm) is watched too: a shell
// that outlives it (one that ignores SIGTERM, or an npm that died without passing the signal on) would
// otherwise keep node running under a launcher that is gone.
// A process started some other way (systemd, a container, a shell) is left alone: its supervisor signals it.
import fs from 'node:fs';

/** How often the parent is looked at (a cheap getppid; the timer does not keep the process alive). */
export const LAUNCHER_POLL_MS = 200;

/** The shells npm runs a command line with (`script-shell`, default sh). */
const SHELLS = new Set(['sh', 'dash', 'bash', 'ash', 'zsh', 'busybox']);

/** A process's name, state and parent from /proc (Linux); null where it is gone or /proc is not there. */
function procStat(pid: number): { comm: string; state: string; ppid: number } | null {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": the name may hold spaces and parentheses, so it ends at the last ')'.
    const end = s.lastIndexOf(')');
    const [state, ppid] = s.slice(end + 2).split(' ');
    return { comm: s.slice(s.indexOf('(') + 1, end), state: state ?? '', ppid: Number(ppid) };
  } catch {
    return null;
  }
}

/** Gone: no such process, or one that exited and waits to be reaped (a zombie). */
const gone = (pid: number) => {
  const st = procStat(pid);
  return st === null || st.state === 'Z' || st.state === 'X';
};

/** Calls onGone once when the parent that started this process under npm exits; returns a function that stops watching. */
export function watchLauncher(onGone: (parentPid: number) => void, env: NodeJS.ProcessEnv = process.env): () => void {
  const parent = process.ppid;
  if (!env.npm_lifecycle_event || parent <= 1) return () => undefined;
  const shell = procStat(parent);
  const launcher = shell && SHELLS.has(shell.comm) && shell.ppid > 1 ? shell.ppid : undefined;
  const timer = setInterval(() => {
    const lost = process.ppid !== parent ? parent : launcher !== undefined && gone(launcher) ? launcher : undefined;
    if (lost === undefined) return;
    clearInterval(timer);
    onGone(lost);
  }, LAUNCHER_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
