/** A command line that cannot run as given: the message says what to type instead (exit code 2). */
export class UsageError extends Error {}

/** Confirmations still owed after resend-pending: the message lists them (exit code 1). */
export class PendingError extends Error {}

/** People a command was asked to remove and could not: the message names each row (exit code 2). */
export class NotRemovedError extends Error {}

/** The one person a command was asked about is not on the list (export --record --email): nothing found (exit code 1). */
export class NotListedError extends Error {}
