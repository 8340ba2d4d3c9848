/** `spool restore FILE`: put a checked backup in place of a stopped daemon's database. */
import * as path from 'node:path';
import type { Command } from 'commander';
import { DamagedBackupError, restoreBackup, verifyBackup } from '../../shared/client/backups';
import { daemonStatus, databaseFileProblem } from '../../shared/client/daemonProcess';
import { defaultDbPath } from '../../shared/client/paths';
import { action, arg } from '../action';
import { CliError } from '../errors';

export function registerRestore(program: Command): void {
  program
    .command('restore')
    .description("Restore a backup (checked against its FILE.sha256, then by SQLite's integrity check) into the database of a stopped daemon")
    .argument('<file>', 'a backup written by `spool backup`')
    .option('--db <path>', 'the database to replace (default: $SPOOL_DB, $XDG_DATA_HOME/spool/spool.db)')
    .addHelpText(
      'after',
      '\nThe daemon using the database must be stopped first (spool daemon stop): a running one is asked and refuses the restore.\n' +
        'The database replaced is kept beside it as <db>.before-restore. With PostgreSQL, use pg_restore or psql instead.\n\n' +
        'Examples:\n  spool daemon stop && spool restore ~/backups/spool/spool-2026-11-24T03-00-00-000Z.db && spool daemon --detach',
    )
    .action(
      action<{ db?: string }>(async (ctx, args, o) => {
        const file = path.resolve(arg(args, 0));
        const running = await daemonStatus(ctx.socketPath);
        if (running !== null) {
          throw new CliError(
            `A Spool daemon (pid ${running.pid}) is running on ${ctx.socketPath} with the database ${running.dbPath}. ` +
              'Stop it first (spool daemon stop), then run spool restore again: a database is never replaced under a running daemon.',
          );
        }
        if (o.db === undefined && process.env['SPOOL_STORE']) {
          // The daemon this user starts keeps its queue in PostgreSQL: a SQLite file put in place
          // of the default database would never be read.
          throw new CliError('SPOOL_STORE is set: the daemon keeps its queue in PostgreSQL, which spool restore (a SQLite file) cannot restore; use pg_restore or psql on the database. To restore a SQLite database anyway, name it with --db. Nothing was changed.');
        }
        const problem = await verifyBackup(file);
        if (problem !== null) throw new CliError(`Cannot restore: ${problem} Nothing was changed.`);
        const dbPath = o.db !== undefined ? path.resolve(o.db) : defaultDbPath();
        let kept: string | null;
        try {
          kept = restoreBackup(file, dbPath, databaseFileProblem);
        } catch (error) {
          if (error instanceof DamagedBackupError) throw new CliError(`Cannot restore: ${error.message} Nothing was changed.`);
          throw error;
        }
        ctx.print(`Restored ${file} into ${dbPath}${kept === null ? '' : `; the database it replaced is kept as ${kept}`}. Start the daemon with \`spool daemon --detach\`.`);
      }),
    );
}
