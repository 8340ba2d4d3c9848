/**
 * Backups the daemon takes itself (`--backup-every 6h --backup-dir D --backup-keep N`): one
 * every interval, timestamped, the newest N kept, as `spool backup --dir D --keep N` does. A
 * failed backup is logged and the next one is tried at its time; the daemon goes on.
 */
import * as fs from 'node:fs';
import { pruneBackups, timestampedBackupPath } from '../../shared/client/backups';
import type { BackupResult } from '../../shared/protocol';
import type { ScheduledBackupOptions } from '../config';
import type { Logger } from './logger';

export class ScheduledBackups {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly options: ScheduledBackupOptions,
    private readonly backup: (target: string) => Promise<BackupResult>,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    // The first one after one interval: a daemon restarted often must not copy the file each time.
    this.timer = setInterval(() => this.takeOne(), this.options.everyMs);
    this.timer.unref();
    this.logger.info('Scheduled backups', { everyMs: this.options.everyMs, dir: this.options.dir, keep: this.options.keep });
  }

  /** Stops the schedule; resolves once a backup in progress has finished. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private takeOne(): void {
    // A copy slower than the interval: the next tick is skipped, not stacked.
    if (this.running !== null) return;
    this.running = this.run().finally(() => (this.running = null));
  }

  private async run(): Promise<void> {
    const { dir, keep } = this.options;
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const result = await this.backup(timestampedBackupPath(dir, this.now()));
      const removed = pruneBackups(dir, keep);
      if (removed.length > 0) this.logger.info('Removed older scheduled backups', { kept: keep, removed });
      this.logger.debug('Scheduled backup written', { path: result.path });
    } catch (error) {
      this.logger.error('A scheduled backup failed; the next one is tried at its time', { dir, error });
    }
  }
}
