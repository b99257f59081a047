import type { WireBody, WireEntry, WireInstruction, WireItemContent, WireTweetResult, WireUserResult } from './wire.ts';

/**
 * Timelines of instructions and entries (FIELD-NOTES 2.2). Items come out in display order; cursors come in two
 * shapes (a plain `TimelineTimelineCursor` entry, or a `TimelineTimelineItem` whose itemContent is the cursor) and
 * may also sit inside modules (`ShowMore`).
 */

export type TweetItem = { kind: 'tweet'; entryId: string; moduleId: string | null; result: WireTweetResult | null; pinned: boolean; promoted: boolean };
export type UserItem = { kind: 'user'; entryId: string; moduleId: string | null; result: WireUserResult | null };
export type TimelineItem = TweetItem | UserItem;

export function isTweetItem(item: TimelineItem): item is TweetItem {
  return item.kind === 'tweet';
}

export interface TimelineCursor {
  cursorType: string;
  value: string;
  entryId: string;
}

export interface ParsedTimeline {
  items: TimelineItem[];
  cursors: TimelineCursor[];
  /** `Bottom` cursor value (next page), if any. */
  bottom: string | null;
  top: string | null;
}

function cursorOf(content: WireItemContent | undefined): { cursorType: string; value: string } | null {
  const c = content?.__typename === 'TimelineTimelineCursor' || content?.cursorType ? content : null;
  if (!c || typeof c.value !== 'string') return null;
  return { cursorType: String(c.cursorType ?? 'Unknown'), value: c.value };
}

function pushItem(
  out: ParsedTimeline,
  entryId: string,
  moduleId: string | null,
  itemContent: WireItemContent | undefined,
  pinned: boolean,
): void {
  if (!itemContent) return;
  const cursor = cursorOf(itemContent);
  if (cursor) {
    out.cursors.push({ ...cursor, entryId });
    return;
  }
  if (itemContent.__typename === 'TimelineTweet' || itemContent.tweet_results) {
    // Ads carry `promotedMetadata` beside the result and a `promoted-…` entry id.
    const promoted = Boolean(itemContent.promotedMetadata) || entryId.startsWith('promoted');
    out.items.push({ kind: 'tweet', entryId, moduleId, result: itemContent.tweet_results?.result ?? null, pinned, promoted });
  } else if (itemContent.__typename === 'TimelineUser' || itemContent.user_results) {
    out.items.push({ kind: 'user', entryId, moduleId, result: itemContent.user_results?.result ?? null });
  }
}

function addEntry(out: ParsedTimeline, entry: WireEntry | undefined, pinned: boolean): void {
  const content = entry?.content;
  const entryId = String(entry?.entryId ?? '');
  if (!content) return;
  const direct = cursorOf(content);
  if (direct) {
    out.cursors.push({ ...direct, entryId });
    return;
  }
  if (content.__typename === 'TimelineTimelineModule' || Array.isArray(content.items)) {
    for (const it of content.items ?? []) pushItem(out, String(it.entryId ?? entryId), entryId, it.item?.itemContent, false);
    return;
  }
  pushItem(out, entryId, null, content.itemContent, pinned);
}

export function parseTimeline(instructions: WireInstruction[] | undefined): ParsedTimeline {
  const out: ParsedTimeline = { items: [], cursors: [], bottom: null, top: null };
  for (const ins of instructions ?? []) {
    if (ins?.type === 'TimelineAddEntries') for (const e of ins.entries ?? []) addEntry(out, e, false);
    else if (ins?.type === 'TimelinePinEntry' && ins.entry) addEntry(out, ins.entry, true);
    else if (ins?.type === 'TimelineReplaceEntry' && ins.entry) addEntry(out, ins.entry, false);
  }
  out.bottom = out.cursors.find((c) => c.cursorType === 'Bottom')?.value ?? null;
  out.top = out.cursors.find((c) => c.cursorType === 'Top')?.value ?? null;
  return out;
}

/** Where each operation keeps its `instructions` (FIELD-NOTES 2.1); 2024 user timelines used `timeline_v2`. */
export function timelineInstructions(body: WireBody | undefined, operation: string): WireInstruction[] | undefined {
  const d = body?.data;
  switch (operation) {
    case 'TweetDetail':
      return d?.threaded_conversation_with_injections_v2?.instructions;
    case 'Retweeters':
      return d?.retweeters_timeline?.timeline?.instructions;
    case 'ListMembers':
      return d?.list?.members_timeline?.timeline?.instructions;
    case 'ListLatestTweetsTimeline':
      return d?.list?.tweets_timeline?.timeline?.instructions;
    case 'SearchTimeline':
      return d?.search_by_raw_query?.search_timeline?.timeline?.instructions;
    default: {
      const result = d?.user?.result;
      return (result?.timeline ?? result?.timeline_v2)?.timeline?.instructions;
    }
  }
}
