/**
 * What every command gets: the global options resolved (socket, colours), one lazily opened
 * client, and output helpers that keep data on stdout and messages on stderr.
 */
import type { Command } from 'commander';
import { SpoolClient } from '../shared/client/client';
import { tlsTarget, type EndpointFlags, type TlsTarget } from '../shared/client/endpoint';
import { defaultSocketPath } from '../shared/client/paths';
import { colorsEnabled, makeColors, type Colors } from './format/color';

export interface GlobalOptions {
  socket?: string;
  color?: boolean;
  /** A daemon over TLS (shared/client/endpoint.ts); each falls back to its environment variable. */
  endpoint?: string;
  tokenFile?: string;
  tlsFingerprint?: string;
  tlsCa?: string;
}

export class CliContext {
  readonly colors: Colors;
  readonly socketPath: string;
  private clientPromise: Promise<SpoolClient> | null = null;
  private opened: SpoolClient | null = null;
  private readonly endpointFlags: EndpointFlags;
  private resolvedTarget: TlsTarget | null | undefined;

  constructor(
    globals: GlobalOptions,
    readonly stdout: NodeJS.WriteStream = process.stdout,
    readonly stderr: NodeJS.WriteStream = process.stderr,
  ) {
    this.socketPath = defaultSocketPath(globals.socket ? { ...process.env, SPOOL_SOCKET: globals.socket } : process.env);
    this.colors = makeColors(colorsEnabled(stdout, process.env, globals.color !== false));
    this.endpointFlags = {
      ...(globals.endpoint === undefined ? {} : { endpoint: globals.endpoint }),
      ...(globals.tokenFile === undefined ? {} : { tokenFile: globals.tokenFile }),
      ...(globals.tlsFingerprint === undefined ? {} : { tlsFingerprint: globals.tlsFingerprint }),
      ...(globals.tlsCa === undefined ? {} : { tlsCa: globals.tlsCa }),
    };
  }

  /**
   * The daemon over TLS that --endpoint (SPOOL_ENDPOINT) names, or null for the Unix socket.
   * Resolved on first use, so that commands that never connect are not refused for a missing token.
   */
  target(): TlsTarget | null {
    if (this.resolvedTarget === undefined) this.resolvedTarget = tlsTarget(this.endpointFlags);
    return this.resolvedTarget;
  }

  /** How to reach the daemon, for SpoolClient.connect: over TLS when an endpoint is named, else the socket. */
  connectOptions(): { socketPath: string } | { tls: TlsTarget } {
    const target = this.target();
    return target ? { tls: target } : { socketPath: this.socketPath };
  }

  /**
   * The connection options as the environment variables they default from, for a program of
   * Spool's this command starts (the language server, the MCP server): it reaches the same daemon.
   */
  connectionEnv(): Record<string, string> {
    const f = this.endpointFlags;
    return {
      SPOOL_SOCKET: this.socketPath,
      ...(f.endpoint === undefined ? {} : { SPOOL_ENDPOINT: f.endpoint }),
      ...(f.tokenFile === undefined ? {} : { SPOOL_TOKEN_FILE: f.tokenFile }),
      ...(f.tlsFingerprint === undefined ? {} : { SPOOL_TLS_FINGERPRINT: f.tlsFingerprint }),
      ...(f.tlsCa === undefined ? {} : { SPOOL_TLS_CA: f.tlsCa }),
    };
  }

  static of(command: Command): CliContext {
    return new CliContext(command.optsWithGlobals<GlobalOptions>());
  }

  /** One connection per command run, opened on first use and checked for the protocol version. */
  client(): Promise<SpoolClient> {
    if (!this.clientPromise) {
      this.clientPromise = SpoolClient.connect(this.connectOptions()).then(async (client) => {
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
