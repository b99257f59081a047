/**
 * Upstream JSON as it arrives. The web GraphQL payloads are large, versioned by date and full of optional members,
 * so the mappers read them through this deliberately loose type and prove their OUTPUT against the zod shapes.
 */
export type Wire = any;

export const MICROBLOG_SITE_URL = 'https://x.com';

export function postUrl(username: string, id: string): string {
  return `${MICROBLOG_SITE_URL}/${username}/status/${id}`;
}

export function profileUrl(username: string): string {
  return `${MICROBLOG_SITE_URL}/${username}`;
}

export function toCount(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : null;
}
