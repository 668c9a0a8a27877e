// A process started through npm (`npx siteline worker`: npm -> `sh -c` -> node) has a shell between it
// and the process the operator signals: npm passes SIGTERM to that shell, which dies of it without
// passing it on, and node would run on as an orphan (still serving, its port taken). `npm start` execs
// node from its script (package.json), so npm's SIGTERM reaches node itself; `npx` builds the shell
// command itself, so there the only sign is that the parent is gone. While a process runs under npm
// (npm sets npm_lifecycle_event for scripts and npx), this watch treats the loss of its parent as SIGTERM.
// A process started some other way (systemd, a container, a shell) is left alone: its supervisor signals it.

/** How often the parent is looked at (a cheap getppid; the timer does not keep the process alive). */
export const LAUNCHER_POLL_MS = 200;

/** Calls onGone once when the parent that started this process under npm exits; returns a function that stops watching. */
export function watchLauncher(onGone: (parentPid: number) => void, env: NodeJS.ProcessEnv = process.env): () => void {
  const parent = process.ppid;
  if (!env.npm_lifecycle_event || parent <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone(parent);
  }, LAUNCHER_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
