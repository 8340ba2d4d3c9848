/**
 * Which resource limit a shell job's command ran into, told from how it ended. What can be told
 * reliably, and so what docs/cli.md promises:
 *
 * - CPU time: the kernel sends SIGXCPU at the limit (SIGKILL a second later if it is caught);
 *   either signal ending the shell, or a shell exit status of 128 + either (the shell reports a
 *   child killed so), with a CPU limit set.
 * - Memory: an allocation past the address-space limit fails, and how a program reports that is
 *   its own affair; with a memory limit set, the usual words in the last lines of stderr
 *   ("Cannot allocate memory", Python's MemoryError, "out of memory", std::bad_alloc) name it.
 *   A program that fails another way (a segfault on a failed stack growth) is not recognised.
 * - Open files and processes: "Too many open files" (EMFILE), and a fork refused
 *   ("Resource temporarily unavailable", "Cannot fork") on stderr, with that limit set.
 * - prlimit itself refusing the limits (a value above the daemon's own hard limit).
 */
import { PRLIMIT } from '../../shared/client/processGroup';
import { formatDuration } from '../../shared/domain/durations';
import { formatSize } from '../../shared/domain/sizes';
import type { ResourceLimits } from '../../shared/protocol/types';

/** How the command ended: the shell's exit code or signal, and the last lines of its stderr. */
export interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
}

/** 128 + the signal's number: how /bin/sh reports a child a signal ended. */
const SIGNAL_STATUS = { SIGKILL: 128 + 9, SIGXCPU: 128 + 24 } as const;

const MEMORY_WORDS = /Cannot allocate memory|MemoryError|out of memory|bad_alloc|ENOMEM|memory allocation failed|failed to allocate/i;
const FILES_WORDS = /Too many open files|EMFILE/;
const FORK_WORDS = /Resource temporarily unavailable|Cannot fork|can't fork|fork: retry|EAGAIN/i;
/** prlimit's own message when it cannot set a limit, e.g. above the daemon's hard limit. */
const PRLIMIT_REFUSED = new RegExp(`^${PRLIMIT}: .*$`, 'm');

/** What the job's error starts with when a limit was hit: "Killed: memory limit 512 MiB"; null when none was. */
export function limitHit(limits: ResourceLimits, ending: Ending): string | null {
  const { code, signal, stderrTail } = ending;
  if (limits.cpuSeconds !== undefined && (signal === 'SIGXCPU' || signal === 'SIGKILL' || code === SIGNAL_STATUS.SIGXCPU || code === SIGNAL_STATUS.SIGKILL)) {
    return `Killed: CPU time limit ${formatDuration(limits.cpuSeconds * 1000)}`;
  }
  if (limits.memoryBytes !== undefined && MEMORY_WORDS.test(stderrTail)) return `Killed: memory limit ${formatSize(limits.memoryBytes)}`;
  if (limits.openFiles !== undefined && FILES_WORDS.test(stderrTail)) return `Failed: open files limit ${limits.openFiles}`;
  if (limits.processes !== undefined && FORK_WORDS.test(stderrTail)) return `Failed: process limit ${limits.processes} (counted for the whole user)`;
  return null;
}

/** prlimit's message when it could not apply the limits (the command never ran); null otherwise. */
export function limitsRefused(limits: ResourceLimits, ending: Ending): string | null {
  if (Object.keys(limits).length === 0 || ending.code !== 1) return null;
  return PRLIMIT_REFUSED.exec(ending.stderrTail)?.[0] ?? null;
}
