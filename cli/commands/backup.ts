/** `spool backup FILE` and `spool backup --dir D --keep N`: a consistent copy of the database while the daemon runs. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { pruneBackups, timestampedBackupPath } from '../../shared/client/backups';
import { action, arg } from '../action';
import { CliError } from '../errors';

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of backups, 1 or more.');
  return n;
}

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description('Write a consistent copy of the database while the daemon runs, with a SHA-256 checksum beside it (FILE.sha256)')
    .argument('[file]', 'where to write the copy (replaced if it exists)')
    .option('--dir <folder>', 'write a timestamped copy (spool-<UTC time>.db) into this folder instead of FILE')
    .option('--keep <n>', 'with --dir: keep the newest N timestamped copies there, removing older ones', positiveInteger)
    .option('--json', 'print what was written as JSON')
    .addHelpText(
      'after',
      '\nThe daemon writes the copy (files 0600); the database keeps taking jobs meanwhile. Restore one with `spool restore FILE` into a stopped daemon.\n' +
        'With PostgreSQL, use pg_dump instead.\n\nExamples:\n  spool backup ~/spool-backup.db\n  spool backup --dir ~/backups/spool --keep 7',
    )
    .action(
      action<{ dir?: string; keep?: number; json?: boolean }>(async (ctx, args, o) => {
        const file = arg(args, 0);
        if (file !== '' && o.dir !== undefined) throw new CliError('Give either FILE or --dir, not both.');
        if (file === '' && o.dir === undefined) throw new CliError('Say where to write the backup: spool backup FILE, or spool backup --dir FOLDER [--keep N].');
        if (o.keep !== undefined && o.dir === undefined) throw new CliError('--keep prunes timestamped backups in a folder: use it with --dir.');
        let target: string;
        if (o.dir !== undefined) {
          const dir = path.resolve(o.dir);
          fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
          target = timestampedBackupPath(dir, Date.now());
        } else {
          target = path.resolve(file);
        }
        const result = await (await ctx.client()).call('daemon.backup', { path: target });
        const removed = o.dir !== undefined && o.keep !== undefined ? pruneBackups(path.resolve(o.dir), o.keep) : [];
        if (o.json) return ctx.printJson({ ...result, removed });
        ctx.print(`Wrote a backup of the database to ${result.path} (${result.bytes} bytes in ${result.ms} ms); its SHA-256 is in ${result.checksumPath}.`);
        if (removed.length > 0) ctx.note(`Removed ${removed.length} older backup${removed.length === 1 ? '' : 's'} (keeping ${o.keep}): ${removed.map((r) => path.basename(r)).join(', ')}`);
      }),
    );
}
