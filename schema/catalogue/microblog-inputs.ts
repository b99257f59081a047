import { z } from 'zod';

/** Input members shared by the microblog operations, with the spec's patterns and bounds. */

export const USER_REF = z
  .string()
  .regex(/^@?[A-Za-z0-9_]{1,50}$/, 'a username with or without `@`, or a numeric account id')
  .describe('A username with or without `@`, or a numeric account id (an all-digit value is read as an id).');

export const NUMERIC_ID_PATTERN = /^[0-9]{1,19}$/;

export const POST_ID = z.string().regex(NUMERIC_ID_PATTERN, 'a numeric post id').describe('Numeric post id (the number after `/status/`).');

export const LIST_ID = z.string().regex(NUMERIC_ID_PATTERN, 'a numeric List id').describe('Numeric List id.');

export const SPACE_ID = z.string().regex(/^[A-Za-z0-9]{1,20}$/, 'an alphanumeric Space id').describe('Space id, e.g. `1vOxwjaWEbdJB`.');

export const IDS = z
  .string()
  .regex(/^[0-9]{1,19}(,[0-9]{1,19}){0,99}$/, 'comma-separated numeric ids, no spaces, at most 100')
  .describe('Up to 100 comma-separated numeric ids, no spaces; duplicates are ignored.');

export const CURSOR = z.string().min(1).max(4096).optional().describe('`meta.nextCursor` of the previous page, unchanged.');

export const limit = (max: number, fallback = 20) =>
  z.int().min(1).max(max).default(fallback).describe(`Items asked of the platform for this page, 1 to ${max}; fewer may come back.`);
