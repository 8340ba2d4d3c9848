/**
 * What the benchmark programs that drive a real VS Code (bench/editor.ts, bench/dashboard.ts)
 * share: the rounds, a figure's line with its target, and the program around a measurement — the
 * skip when code-server or Chromium is missing, a daemon, a code-server window connected to it,
 * everything closed afterwards, and the exit status bench/main.ts reads.
 *
 * Exit status: 0 every target met, 2 a target missed, 3 skipped (code-server or Chromium missing),
 * 1 the benchmark failed.
 */
import { startDaemon, type TestDaemon } from '../test/helpers/daemon';
import { openVsCode } from '../test/e2e/harness';
import { median } from '../test/e2e/support/editorTiming';
import { codeServerEntry } from '../test/e2e/support/paths';

export const QUICK = process.env['SPOOL_BENCH_QUICK'] === '1';
export const ROUNDS = QUICK ? 3 : 7;

/** Prints a figure's median and range, and whether it met `targetMs` (null: no target); returns that. */
export function figure(name: string, times: number[], targetMs: number | null, width = 38): boolean {
  const m = median(times);
  const met = targetMs === null || m < targetMs;
  const target = targetMs === null ? '' : `   target < ${targetMs} ms ${met ? 'met' : 'MISSED'}`;
  console.log(`  ${name.padEnd(width)} ${String(m).padStart(5)} ms median (range ${Math.min(...times)}–${Math.max(...times)} ms: ${times.join(', ')})${target}`);
  return met;
}

type VsCode = Awaited<ReturnType<typeof openVsCode>>;

/**
 * Runs `measure` with a daemon (prepared by `seed` first) and a code-server window connected to
 * it, then exits with the status above; `title` names the benchmark in its messages.
 */
export function runEditorProgram(title: string, heading: string, seed: (daemon: TestDaemon) => Promise<void>, measure: (vscode: VsCode) => Promise<boolean[]>): void {
  const main = async (): Promise<number> => {
    try {
      codeServerEntry();
    } catch (error) {
      console.log(`${title}: skipped: ${(error as Error).message}`);
      return 3;
    }
    console.log(heading);
    const daemon = await startDaemon();
    try {
      await seed(daemon);
      const vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
      try {
        return (await measure(vscode)).every(Boolean) ? 0 : 2;
      } finally {
        await vscode.close();
      }
    } finally {
      await daemon.dispose();
    }
  };
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`${title} benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    },
  );
}
