/**
 * A hostile local client cannot grow the daemon's memory without bound with lines that never
 * end: unfinished lines are capped across all connections, the largest offenders are closed
 * with an error, the memory goes back after they close, and other clients are answered.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { test } from 'node:test';
import { startDaemon, waitFor } from '../helpers/daemon';

const MiB = 1024 * 1024;

/** The process's resident memory, in MiB. */
function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(match, 'VmRSS in /proc/<pid>/status');
  return Number(match[1]) / 1024;
}

/** Sends `bytes` without a newline, 1 MiB at a time; stops early if the daemon closes the connection. */
async function sendUnfinishedLine(socket: net.Socket, bytes: number): Promise<void> {
  const chunk = Buffer.alloc(MiB, 'a');
  for (let sent = 0; sent < bytes && !socket.destroyed && socket.writable; sent += MiB) {
    if (!socket.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    }
  }
}

test('40 connections each sending 15 MiB without a newline: memory stays bounded, comes back after they close, and others are answered', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  await client.call('daemon.status');
  const base = rssMiB(daemon.pid);

  const sockets: net.Socket[] = [];
  const answers: string[] = [];
  t.after(() => sockets.forEach((s) => s.destroy()));
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(daemon.pid))), 20);
  let answered = 0;
  const attack = Promise.all(
    Array.from({ length: 40 }, async () => {
      const socket = net.createConnection(daemon.socketPath);
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.on('data', (data: Buffer) => answers.push(data.toString()));
      await new Promise((resolve) => socket.once('connect', resolve));
      await sendUnfinishedLine(socket, 15 * MiB);
    }),
  );
  // Meanwhile another client keeps being answered.
  const others = (async () => {
    for (let i = 0; i < 20; i++) {
      await client.call('jobs.enqueue', { queue: 'meanwhile', kind: 'k', payload: { i } });
      answered++;
    }
  })();
  await Promise.all([attack, others]);
  peak = Math.max(peak, rssMiB(daemon.pid));
  clearInterval(sampler);
  assert.equal(answered, 20);
  t.diagnostic(`grew by ${Math.round(peak - base)} MiB from ${Math.round(base)} MiB`);

  // Before the budget this grew by ~630 MiB (the issue measured 140 → 745 MB).
  assert.ok(peak - base < 250, `the daemon grew by ${Math.round(peak - base)} MiB (from ${Math.round(base)} MiB); the budget is 64 MiB`);
  await waitFor('an error to a refused connection', () => answers.some((a) => a.includes('unfinished lines across all connections')));
  assert.match(daemon.log(), /Closing the connection holding the largest unfinished line/);

  for (const socket of sockets) socket.destroy();
  // Before, the memory stayed (686 MiB after they closed); now it goes back once they are gone.
  await waitFor('the memory to come back', () => rssMiB(daemon.pid) - base < 170, 30_000);
  const { jobs } = await client.call('jobs.list', { queue: 'meanwhile' });
  assert.equal(jobs.length, 20);
});
