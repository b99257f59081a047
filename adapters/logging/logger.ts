import pino from 'pino';

/**
 * Structured JSON logs on stdout, one object a line. `LOG_LEVEL` sets the level (default `info`; `warn` under the test
 * runner, where access lines would drown the output). Credentials never reach a log line.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.VITEST ? 'warn' : 'info'),
  base: { service: 'conversation-data-service' },
  redact: { paths: ['authorization', '*.authorization', 'headers.authorization', 'secret', '*.secret'], censor: '[redacted]' },
});
