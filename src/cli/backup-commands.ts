import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { RefusedError, required } from './cli-errors.js';
import { printResult } from './output.js';

type Options = Record<string, string | boolean | undefined>;

/** A backup or restore refused: the problems as lines, and as JSON with --json. */
async function refusalsNamed<T>(work: () => Promise<T>): Promise<T> {
  const { BackupRefusedError } = await import('../adapters/backups/backup-refused.js');
  try {
    return await work();
  } catch (error) {
    if (error instanceof BackupRefusedError)
      throw new RefusedError(error.message, { error: error.message.split('\n')[0], problems: error.problems });
    throw error;
  }
}

/**
 * `rdp admin backup` and `rdp admin restore` (docs/operations.md, "Backups and restores"): the
 * embedded default's data directory, copied while the server runs and restored into an empty
 * one. PostgreSQL and S3 have their own tools (pg_dump, the bucket's copy): these refuse there.
 */
export function addBackupCommands(admin: Command): void {
  admin
    .command('backup')
    .description(
      'copy the embedded stores and the blobs they name while the server runs, with a manifest; prints to, files, bytes',
    )
    .option('--to <dir>', 'an empty or new folder, outside the data directory (required)')
    .option('--json', 'print one JSON object')
    .action(async (options: Options) => {
      const to = required(options.to as string | undefined, 'to');
      const config = loadConfig();
      if (config.databaseUrl || config.blobs.store !== 'filesystem')
        throw new RefusedError(
          'rdp admin backup copies the embedded default (SQLite and blobs on disk); for PostgreSQL and S3 follow docs/operations.md ("Backups and restores")',
        );
      const { backupEmbedded } = await import('../adapters/backups/embedded-backup.js');
      const summary = await refusalsNamed(() => backupEmbedded({ dataDir: config.dataDir, to, now: () => new Date() }));
      printResult({ ...summary }, Boolean(options.json));
    });
  admin
    .command('restore')
    .description(
      'restore a backup into an empty data directory, checking every file against the manifest; prints dataDir, files, bytes',
    )
    .option('--from <dir>', 'the backup’s folder (required)')
    .option('--data-dir <dir>', 'the data directory to fill (default RDP_DATA_DIR); empty or new')
    .option('--json', 'print one JSON object')
    .action(async (options: Options) => {
      const from = required(options.from as string | undefined, 'from');
      const dataDir = (options.dataDir as string | undefined) ?? loadConfig().dataDir;
      const { restoreEmbedded } = await import('../adapters/backups/embedded-restore.js');
      const summary = await refusalsNamed(() => restoreEmbedded({ from, dataDir }));
      printResult({ ...summary }, Boolean(options.json));
    });
}
