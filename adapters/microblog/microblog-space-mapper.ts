import type { MicroblogSpace, MicroblogSpaceParticipant } from '../shapes/microblog-shapes.ts';
import { epochToIso } from './microblog-text.ts';
import { MICROBLOG_SITE_URL, toCount, type WireAudioSpace, type WireSpaceParticipant } from './wire.ts';

/**
 * `AudioSpaceById` → `data.audioSpace{metadata, participants}` (FIELD-NOTES 2.1, unverified: no public
 * recording). Times are epoch milliseconds; participants carry the handle and display name directly.
 */
function mapParticipant(p: WireSpaceParticipant): MicroblogSpaceParticipant {
  const restId = p.user_results?.rest_id ?? p.user_results?.result?.rest_id;
  return {
    id: restId !== undefined ? String(restId) : null,
    username: String(p.twitter_screen_name ?? ''),
    name: String(p.display_name ?? ''),
    verified: Boolean(p.is_verified || p.user_results?.result?.is_blue_verified),
    profileImageUrl: p.avatar_url ?? null,
  };
}

export function mapSpace(audioSpace: WireAudioSpace): MicroblogSpace {
  const m: NonNullable<WireAudioSpace['metadata']> = audioSpace.metadata ?? {};
  const participants: NonNullable<WireAudioSpace['participants']> = audioSpace.participants ?? {};
  const id = String(m.rest_id);
  return {
    id,
    url: `${MICROBLOG_SITE_URL}/i/spaces/${id}`,
    state: String(m.state ?? 'Unknown'),
    title: typeof m.title === 'string' && m.title !== '' ? m.title : null,
    lang: m.language ?? null,
    createdAt: epochToIso(m.created_at, 'ms'),
    scheduledStart: epochToIso(m.scheduled_start, 'ms'),
    startedAt: epochToIso(m.started_at, 'ms'),
    endedAt: epochToIso(m.ended_at, 'ms'),
    participantCount: toCount(participants.total ?? m.total_live_listeners),
    isRecorded: typeof m.is_space_available_for_replay === 'boolean' ? m.is_space_available_for_replay : null,
    hosts: (participants.admins ?? []).map(mapParticipant),
    speakers: (participants.speakers ?? []).map(mapParticipant),
  };
}
