/**
 * Colours only where a person reads them: stdout is a terminal, NO_COLOR is unset, TERM is not
 * `dumb`, and `--no-color` was not given. FORCE_COLOR turns them on for a pipe.
 */
export interface Colors {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  cyan(s: string): string;
  magenta(s: string): string;
}

export function colorsEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv, flag: boolean): boolean {
  if (!flag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== '') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export function makeColors(enabled: boolean): Colors {
  const wrap = (open: number, close: number) => (s: string) => (enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    blue: wrap(34, 39),
    magenta: wrap(35, 39),
    cyan: wrap(36, 39),
  };
}

const ANSI = /\x1b\[[0-9;]*m/g;

/** Width on screen, not counting colour codes. */
export function visibleLength(s: string): number {
  return s.replace(ANSI, '').length;
}
