/**
 * The second of the extension's two lifetimes. The extension's own lifetime (its emitters, views,
 * commands) ends when VS Code deactivates it; a client's lifetime ends whenever the connection
 * drops that client — a restart, a stop, a daemon gone for good, a protocol mismatch — and a new
 * client begins another. Whatever is registered on a client (its state listener, its event
 * subscription) is tied to its scope and disposed with it, so that a dropped client leaves no
 * listener behind and a late event from it reaches nobody.
 */
import * as vscode from 'vscode';
import type { SpoolClient } from '../../shared/client/client';
import { errorMessage } from '../../shared/protocol/errors';

export class ClientScope implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;

  constructor(
    /** The client this scope is the lifetime of. */
    readonly client: SpoolClient,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Ties `disposable` to the client's lifetime; a scope that has ended disposes it at once. */
  add(disposable: vscode.Disposable): void {
    if (this.disposed) disposable.dispose();
    else this.disposables.push(disposable);
  }

  /** Ties an unsubscribe function (as `SpoolClient.onStateChange` returns) to the client's lifetime. */
  addCleanup(cleanup: () => unknown): void {
    this.add(new vscode.Disposable(cleanup));
  }

  /**
   * Closes the client, then disposes what was tied to it, newest first. Closing first means an
   * event subscription disposed here ends without a request to a daemon that is being left.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.client.close();
    for (const disposable of this.disposables.splice(0).reverse()) {
      try {
        disposable.dispose();
      } catch (error) {
        // One failing cleanup must not keep the others from running.
        this.log.error(`Disposing a listener of the dropped daemon client failed: ${errorMessage(error)}`);
      }
    }
  }
}
