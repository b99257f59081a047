import { expect } from 'vitest';
import { mapArticle } from '../../../adapters/microblog/microblog-article-mapper.ts';
import { mapPost, unavailableTweetReason, unwrapTweet } from '../../../adapters/microblog/microblog-post-mapper.ts';
import { parseTimeline, timelineInstructions, type ParsedTimeline } from '../../../adapters/microblog/microblog-timeline-parser.ts';
import { mapAboutDetails, mapProfile, unavailableUserReason } from '../../../adapters/microblog/microblog-user-mapper.ts';
import type { Wire } from './fixture-lookup.ts';
import {
  AboutDetailsShape,
  ArticleShape,
  MicroblogPostShape,
  MicroblogProfileShape,
  type AboutDetails,
  type Article,
  type MicroblogPost,
  type MicroblogProfile,
} from '../../../adapters/shapes/microblog-shapes.ts';

/** What one recorded (or simulated) response body maps to, every object already checked against its shape. */
export interface MappedBody {
  timeline: ParsedTimeline | null;
  posts: MicroblogPost[];
  profiles: MicroblogProfile[];
  unavailable: string[];
  about: AboutDetails | null;
  articles: Article[];
  errors: Array<{ message: string; code?: number }>;
}

function strict<T>(shape: { parse(v: unknown): T }, value: unknown): T {
  return shape.parse(value);
}

/**
 * Maps a response body of `operation` the way the client does and validates every object with the spec shapes.
 * Shared by the fixture tests and the simulated-platform tests, so both formats pass the same checks.
 */
export function mapRecordedBody(operation: string, body: Wire): MappedBody {
  const out: MappedBody = { timeline: null, posts: [], profiles: [], unavailable: [], about: null, articles: [], errors: [] };
  if (Array.isArray(body?.errors)) out.errors = body.errors;
  const tweetResult = (result: Wire, full: boolean) => {
    const reason = unavailableTweetReason(result);
    if (reason !== null) {
      out.unavailable.push(reason);
      return;
    }
    const post = mapPost(result);
    expect(post, 'a real tweet maps to a post').not.toBeNull();
    out.posts.push(strict(MicroblogPostShape, post));
    const tweet = unwrapTweet(result)!;
    const article = tweet.article?.article_results?.result;
    if (full && article?.rest_id) out.articles.push(strict(ArticleShape, mapArticle(article, tweet, true)));
    // In lists only previews travel, often on the reposted original.
    const preview = full ? null : (post?.article ?? post?.repostedPost?.article ?? post?.quotedPost?.article ?? null);
    if (preview) out.articles.push(strict(ArticleShape, preview));
  };
  const userResult = (result: Wire) => {
    const reason = unavailableUserReason(result);
    if (reason !== null) out.unavailable.push(reason);
    else out.profiles.push(strict(MicroblogProfileShape, mapProfile(result)));
  };
  switch (operation) {
    case 'TweetResultsByRestIds':
      for (const slot of body.data.tweetResult) tweetResult(slot?.result, false);
      return out;
    case 'UserByScreenName':
    case 'UserByRestId':
      userResult(body.data.user.result);
      return out;
    case 'UsersByRestIds':
      for (const slot of body.data?.users ?? [body]) userResult(slot.result);
      return out;
    case 'AboutAccountQuery':
      out.about = strict(AboutDetailsShape, mapAboutDetails(body.data.user_result_by_screen_name.result));
      return out;
    default: {
      const instructions = timelineInstructions(body, operation);
      if (!instructions) return out;
      const timeline = parseTimeline(instructions);
      out.timeline = timeline;
      for (const it of timeline.items) {
        if (it.kind === 'tweet') tweetResult(it.result, operation === 'TweetDetail');
        else userResult(it.result);
      }
      return out;
    }
  }
}

/** The operation a fixture file records: the file name up to the first `-` or `.`. */
export function operationOfFixture(file: string): string {
  return file.replace(/[-.].*$/, '');
}
