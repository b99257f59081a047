/**
 * The forum platform's JSON wire format (Listing / t1 / t3 / t5 / more Things), typed loosely: every field
 * is optional because the recordings show fields appearing and disappearing across the years.
 */
export interface Thing<K extends string = string, D = Record<string, unknown>> {
  kind: K;
  data: D;
}

export interface ListingData {
  after?: string | null;
  before?: string | null;
  dist?: number | null;
  children?: Thing[];
}

export type Listing = Thing<'Listing', ListingData>;

export interface T3Data {
  id?: string;
  name?: string;
  subreddit?: string;
  title?: string;
  selftext?: string;
  author?: string;
  permalink?: string;
  url?: string;
  score?: number;
  upvote_ratio?: number;
  num_comments?: number;
  over_18?: boolean;
  created_utc?: number;
  domain?: string;
  is_self?: boolean;
  url_overridden_by_dest?: string;
  link_flair_text?: string | null;
  author_flair_text?: string | null;
  distinguished?: string | null;
  stickied?: boolean;
  locked?: boolean;
  archived?: boolean;
  spoiler?: boolean;
  edited?: boolean | number;
  num_crossposts?: number;
  crosspost_parent?: string;
  removed_by_category?: string | null;
  subreddit_subscribers?: number;
  post_hint?: string;
  is_video?: boolean;
  promoted?: boolean;
}

export interface T1Data {
  id?: string;
  name?: string;
  link_id?: string;
  parent_id?: string;
  author?: string;
  body?: string;
  score?: number;
  permalink?: string;
  created_utc?: number;
  subreddit?: string;
  is_submitter?: boolean;
  edited?: boolean | number;
  distinguished?: string | null;
  stickied?: boolean;
  score_hidden?: boolean;
  link_title?: string;
  link_author?: string;
  link_permalink?: string;
  num_comments?: number;
  over_18?: boolean;
  depth?: number;
  replies?: Listing | '';
}

export interface T5Data {
  id?: string;
  name?: string;
  display_name?: string;
  title?: string;
  public_description?: string | null;
  url?: string;
  subscribers?: number | null;
  over18?: boolean | null;
  created_utc?: number;
  subreddit_type?: string;
  submission_type?: string | null;
  lang?: string | null;
  quarantine?: boolean | null;
  community_icon?: string | null;
  icon_img?: string | null;
  banner_img?: string | null;
}

export interface MoreData {
  id: string;
  name: string;
  count: number;
  parent_id: string;
  depth?: number;
  children: string[];
}

/** The platform's error body, e.g. `{reason: "quarantined", message: "Forbidden", error: 403}`. */
export interface ErrorBody {
  reason?: string;
  message?: string;
  error?: number;
}

export function isThing(value: unknown): value is Thing {
  return typeof value === 'object' && value !== null && typeof (value as Thing).kind === 'string' && typeof (value as Thing).data === 'object' && (value as Thing).data !== null;
}

export function isListing(value: unknown): value is Listing {
  return isThing(value) && value.kind === 'Listing' && Array.isArray((value.data as ListingData).children);
}

export function asT3(thing: Thing): T3Data {
  return thing.data as T3Data;
}

export function asT1(thing: Thing): T1Data {
  return thing.data as T1Data;
}

export function asT5(thing: Thing): T5Data {
  return thing.data as T5Data;
}

export function asMore(thing: Thing): MoreData {
  return thing.data as unknown as MoreData;
}

export function stripPrefix(fullname: string): string {
  const underscore = fullname.indexOf('_');
  return /^t\d$/.test(fullname.slice(0, underscore)) ? fullname.slice(underscore + 1) : fullname;
}
