// What a command writes to: stdout for the answer, stderr for messages and progress, colour only on
// a terminal (never when piped, with NO_COLOR, TERM=dumb or --no-color; FORCE_COLOR turns it on).
import type { Writable } from 'node:stream';

export interface Palette {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export function palette(enabled: boolean): Palette {
  const id = (s: string) => s;
  return enabled
    ? { enabled, bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39) }
    : { enabled, bold: id, dim: id, red: id, green: id, yellow: id };
}

/** clig.dev's rules for colour, in order: the flag, NO_COLOR, FORCE_COLOR, TERM=dumb, then "is it a terminal". */
export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv, noColorFlag: boolean): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

export interface Io {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Colour for stdout. */
  colour: Palette;
  /** Colour for stderr (judged on its own: stdout may be piped while stderr is a terminal). */
  errColour: Palette;
}

export function out(io: Io, text: string): void {
  io.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

export function err(io: Io, text: string): void {
  io.stderr.write(text.endsWith('\n') ? text : text + '\n');
}

export interface Progress {
  /** Replaces the label (e.g. "Waiting… 12 s"). */
  update(label: string): void;
  /** Clears the spinner line. */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * A spinner on stderr for work that may take more than a second. On a terminal it appears after one
 * second (quick answers stay quiet) and is erased when done; when stderr is not a terminal it writes
 * the label once, as a plain line, so logs still say what the command was waiting for.
 */
export function progress(io: Io, label: string, opts: { plainLine?: boolean } = {}): Progress {
  let current = label;
  if (!io.stderr.isTTY) {
    if (opts.plainLine) err(io, label);
    return { update: (l) => void (current = l), stop: () => undefined };
  }
  const started = Date.now();
  let frame = 0;
  let shown = false;
  const draw = () => {
    shown = true;
    const secs = Math.floor((Date.now() - started) / 1000);
    io.stderr.write(`\r\u001b[2K${io.errColour.dim(FRAMES[frame++ % FRAMES.length]!)} ${current} ${io.errColour.dim(`${secs} s`)}`);
  };
  let timer: NodeJS.Timeout | undefined;
  const delay = setTimeout(() => {
    draw();
    timer = setInterval(draw, 100);
    timer.unref();
  }, 1000);
  delay.unref();
  return {
    update: (l) => void (current = l),
    stop: () => {
      clearTimeout(delay);
      if (timer) clearInterval(timer);
      if (shown) io.stderr.write('\r\u001b[2K');
    },
  };
}
