import pino from 'pino';

/**
 * What a database error's log line keeps: the fields naming what failed. Its statement (`query`: the driver inlines
 * the values), `detail`, `where` and `hint` quote the data, and are left out.
 */
const DATABASE_ERROR_FIELDS = ['code', 'severity', 'schema', 'table', 'column', 'constraint', 'routine'] as const;

/** PostgreSQL's (and PGlite's) errors, as the drivers and MikroORM throw them: an SQLSTATE and a severity. */
function isDatabaseError(error: unknown): error is Error & Record<string, unknown> {
  return error instanceof Error && typeof (error as { severity?: unknown }).severity === 'string' && typeof (error as { code?: unknown }).code === 'string';
}

/**
 * The primary message only (MikroORM appends the detail: `\n - detail: Key (email)=(…)`), with every quoted segment
 * replaced: an input error ends quoting the value (`invalid input syntax for type uuid: "…"`), a range error quotes
 * it midway (`value "…" is out of range for type integer`). A trailing quote is taken whole first, as such a value
 * may itself hold a quote; names quoted (a constraint, a table) go too, and stay in their own fields.
 */
function messageWithoutData(message: string): string {
  return message.split('\n')[0].replace(/: ".*"$/, ': "…"').replace(/"[^"]*"/g, '"…"');
}

/**
 * `err` as the standard serializer gives it, except a database error (anywhere in the chain of causes): its code,
 * table and constraint, its primary message and its stack frames, never the statement or the values it carried.
 */
export function serializeError(error: unknown): unknown {
  if (isDatabaseError(error)) {
    const message = messageWithoutData(error.message);
    const frames = (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));
    const fields = Object.fromEntries(DATABASE_ERROR_FIELDS.filter((field) => error[field] !== undefined).map((field) => [field, error[field]]));
    return { type: error.constructor.name, message, ...fields, stack: [`${error.name}: ${message}`, ...frames].join('\n') };
  }
  if (!(error instanceof Error) || !hasDatabaseCause(error)) return pino.stdSerializers.err(error as Error);
  // The standard serializer copies the causes' messages into the error's own: with a database error among them, the
  // error keeps its own message and stack, and the cause is serialized here.
  return { type: error.constructor.name, message: error.message, stack: error.stack, cause: serializeError(error.cause) };
}

function hasDatabaseCause(error: Error): boolean {
  for (let cause = error.cause, depth = 0; cause !== undefined && depth < 10; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (isDatabaseError(cause)) return true;
  }
  return false;
}

/**
 * Structured JSON logs on stdout, one object a line. `LOG_LEVEL` sets the level (default `info`; `warn` under the test
 * runner, where access lines would drown the output). Credentials never reach a log line, nor the data a failed
 * statement carried.
 */
export const LOGGER_OPTIONS: pino.LoggerOptions = {
  level: process.env.LOG_LEVEL ?? (process.env.VITEST ? 'warn' : 'info'),
  base: { service: 'conversation-data-service' },
  redact: { paths: ['authorization', '*.authorization', 'headers.authorization', 'secret', '*.secret'], censor: '[redacted]' },
  serializers: { err: serializeError },
};

export const logger = pino(LOGGER_OPTIONS);
