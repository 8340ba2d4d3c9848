/**
 * The launcher process (dist/launcher.js): starts the shell jobs' processes on the daemon's
 * request. See launcher.ts, the daemon's side, for why it exists and what it promises.
 *
 * It is small on purpose (Node and this file, no daemon code): starting a process forks the
 * process that starts it, and forking this one copies a few megabytes of memory where forking
 * the daemon copies its whole heap and makes the daemon fault on every page it writes after.
 *
 * It talks to the daemon over the IPC channel Node opened for it, and exits when that channel
 * closes (the daemon exited or was killed): it never outlives the daemon. The processes it
 * started are in process groups (and cgroups) of their own and are left as the daemon leaves
 * them: a daemon killed outright has its next start find them.
 */
import { spawnHere, type SpawnedProcess } from '../../shared/client/processGroup';
import type { LauncherReply, LauncherRequest } from './launcher';

const started = new Map<number, SpawnedProcess>();

function send(reply: LauncherReply): void {
  // The channel is gone only when the daemon is: 'disconnect' below ends this process.
  if (process.connected) process.send?.(reply);
}

function start(request: Extract<LauncherRequest, { t: 'start' }>): void {
  const { id } = request;
  try {
    const child = spawnHere(request.request, {
      spawned: (pid) => send({ t: 'spawned', id, pid }),
      output: (stream, chunk) => send({ t: 'output', id, stream, chunk }),
      error: (error) => {
        started.delete(id);
        send({ t: 'error', id, message: error.message, ...('code' in error && typeof error.code === 'string' ? { code: error.code } : {}) });
      },
      exit: (code, signal) => send({ t: 'exit', id, code, signal }),
      close: () => {
        started.delete(id);
        send({ t: 'close', id });
      },
      problem: (message) => send({ t: 'problem', id, message }),
    });
    started.set(id, child);
  } catch (error) {
    send({ t: 'error', id, message: error instanceof Error ? error.message : String(error) });
  }
}

process.on('message', (message: LauncherRequest) => {
  if (message.t === 'start') start(message);
  else if (message.t === 'closePipes') started.get(message.id)?.closePipes();
});
process.on('disconnect', () => process.exit(0));
send({ t: 'ready' });
