/**
 * What every command gets: the global options resolved (socket, colours), one lazily opened
 * client, and output helpers that keep data on stdout and messages on stderr.
 */
import type { Command } from 'commander';
import { SpoolClient } from '../shared/client';
import { defaultSocketPath } from '../shared/paths';
import { colorsEnabled, makeColors, type Colors } from './format/color';

export interface GlobalOptions {
  socket?: string;
  color?: boolean;
}

export class CliContext {
  readonly colors: Colors;
  readonly socketPath: string;
  private clientPromise: Promise<SpoolClient> | null = null;
  private opened: SpoolClient | null = null;

  constructor(
    globals: GlobalOptions,
    readonly stdout: NodeJS.WriteStream = process.stdout,
    readonly stderr: NodeJS.WriteStream = process.stderr,
  ) {
    this.socketPath = defaultSocketPath(globals.socket ? { ...process.env, SPOOL_SOCKET: globals.socket } : process.env);
    this.colors = makeColors(colorsEnabled(stdout, process.env, globals.color !== false));
  }

  static of(command: Command): CliContext {
    const { socket, color } = command.optsWithGlobals<GlobalOptions>();
    return new CliContext({ socket, color });
  }

  /** One connection per command run, opened on first use and checked for the protocol version. */
  client(): Promise<SpoolClient> {
    if (!this.clientPromise) {
      this.clientPromise = SpoolClient.connect({ socketPath: this.socketPath }).then(async (client) => {
        try {
          await client.handshake();
        } catch (error) {
          client.close();
          throw error;
        }
        this.opened = client;
        return client;
      });
    }
    return this.clientPromise;
  }

  /** Close the connection if one was opened. */
  close(): void {
    this.opened?.close();
    this.opened = null;
    this.clientPromise = null;
  }

  print(text: string): void {
    this.stdout.write(text.endsWith('\n') || text === '' ? text : text + '\n');
  }

  /** Messages that are not data (hints, progress, summaries of what was done). */
  note(text: string): void {
    this.stderr.write(text.endsWith('\n') ? text : text + '\n');
  }

  printJson(value: unknown): void {
    this.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }
}
