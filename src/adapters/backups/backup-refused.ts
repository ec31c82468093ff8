/** A backup or a restore refused, with every reason (a file named per line): the command line prints them. */
export class BackupRefusedError extends Error {
  constructor(
    message: string,
    readonly problems: string[] = [],
  ) {
    super(problems.length > 0 ? `${message}:\n  ${problems.join('\n  ')}` : message);
  }
}
