import { ServiceError } from './error-catalogue.ts';

/** A call option as the client sent it, with the name it was sent under (a header, an extension, an argument). */
export interface SentOption {
  value: unknown;
  field: string;
}

/**
 * Options a client may set on any call beside the operation's own arguments, as sent: each under every name it came
 * with (a header, and a GraphQL extension or an MCP argument). The strictest wins: the lowest ceiling, a dry run if
 * any asks for one, so a gateway's header cannot be lifted by what its clients send.
 */
export interface SentCallOptions {
  maxCredits?: SentOption[];
  dryRun?: SentOption[];
}

/** The options of a call, checked. */
export interface CallOptions {
  /** The most the call may be charged, and the name the client gave it (for a 400 naming it). */
  maxCredits?: { credits: number; field: string };
  /** Estimate only: nothing runs, nothing is charged. */
  dryRun: boolean;
}

export const MAX_CREDITS_HEADER = 'x-max-credits';
export const DRY_RUN_HEADER = 'x-dry-run';

/** The options a request's headers carry (every surface reads them). */
export function callOptionsFromHeaders(header: (name: string) => string | string[] | undefined): SentCallOptions {
  const options: SentCallOptions = {};
  const maxCredits = header(MAX_CREDITS_HEADER);
  const dryRun = header(DRY_RUN_HEADER);
  if (maxCredits !== undefined) options.maxCredits = [{ value: maxCredits, field: MAX_CREDITS_HEADER }];
  if (dryRun !== undefined) options.dryRun = [{ value: dryRun, field: DRY_RUN_HEADER }];
  return options;
}

function invalid(field: string, message: string): ServiceError {
  return new ServiceError('invalid_request', { message, details: { field } });
}

/**
 * Checks the options as sent, each under every name it came with: `maxCredits` an integer 0 to 10^9, `dryRun` a
 * boolean (`true`/`false` in a header). The lowest ceiling is the call's; any dry run makes it one.
 */
export function checkCallOptions(sent: SentCallOptions | undefined): CallOptions {
  const options: CallOptions = { dryRun: false };
  for (const max of sent?.maxCredits ?? []) {
    const value = typeof max.value === 'string' && /^\d{1,10}$/.test(max.value) ? Number(max.value) : max.value;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 1e9) {
      throw invalid(max.field, `'${max.field}' must be an integer from 0 to 1000000000: the most credits this call may be charged.`);
    }
    if (!options.maxCredits || value < options.maxCredits.credits) options.maxCredits = { credits: value, field: max.field };
  }
  for (const dry of sent?.dryRun ?? []) {
    const value = dry.value === 'true' ? true : dry.value === 'false' ? false : dry.value;
    if (typeof value !== 'boolean') throw invalid(dry.field, `'${dry.field}' must be true or false.`);
    options.dryRun ||= value;
  }
  return options;
}
