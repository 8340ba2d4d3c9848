/**
 * What Enqueue Current File runs for a file, or why it refuses: only a script is run — a file
 * with a `#!` line (run with it), one marked executable (run as it is), or a shell script by its
 * name (`.sh`, `.bash`: run with `sh` or `bash`). Anything else (a settings.json, a README) is
 * refused with the reason, where it used to be handed to `sh`. No `vscode` import: unit-tested.
 */
import * as path from 'node:path';

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The shell command that runs `file`, or the reason it is not a script. */
export function scriptCommand(file: string, firstLine: string, executable: boolean): { command: string } | { refused: string } {
  if (firstLine.startsWith('#!')) return { command: `${firstLine.slice(2).trim()} ${shellQuote(file)}` };
  if (executable) return { command: shellQuote(file) };
  const ext = path.extname(file).toLowerCase();
  if (ext === '.sh') return { command: `sh ${shellQuote(file)}` };
  if (ext === '.bash') return { command: `bash ${shellQuote(file)}` };
  return {
    refused: `${path.basename(file)} is not a script: it has no #! line, is not marked executable, and is not a .sh or .bash file. Spool runs only scripts, so that a file is never handed to a shell by mistake; add a #! line (e.g. #!/bin/sh) or mark it executable (chmod +x).`,
  };
}
