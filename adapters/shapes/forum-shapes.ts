import { z } from 'zod';

/** A date-time string as the spec prints it (ISO 8601, UTC). */
const dateTime = z.iso.datetime({ offset: true });

export const ForumPostShape = z
  .object({
    id: z.string().describe('Base-36 post id without the `t3_` prefix.'),
    subforum: z.string().describe('Community name without the `r/` prefix.'),
    title: z.string().describe('Post title.'),
    selftext: z.string().describe('Body text; empty for a link post.'),
    author: z.string().describe('Username without `u/`; `[deleted]` if removed.'),
    permalink: z.string().describe('Path of the post, beginning with a slash.'),
    url: z.string().describe('Absolute URL of the post.'),
    score: z.int().describe('Upvotes minus downvotes; may be negative; fuzzed by the platform.'),
    upvoteRatio: z.number().min(0).max(1).describe('Share of upvotes, 0 to 1.'),
    numComments: z.int().min(0).describe('Number of comments.'),
    over18: z.boolean().describe('Marked NSFW.'),
    createdUtc: z.number().describe('Creation time in epoch seconds.'),
    createdAt: dateTime.describe('Creation time; the same instant as createdUtc.'),
    domain: z.string().describe('`self.<subforum>` for a text post, else the linked host.'),
    isSelf: z.boolean().describe('Text post rather than link.'),
    urlOverriddenByDest: z.string().nullable().describe('Link target; null for a text post.'),
    linkFlairText: z.string().nullable().describe('Post flair; null when none.'),
    authorFlairText: z.string().nullable().describe("Author's flair in the community."),
    distinguished: z.string().nullable().describe('`moderator` or `admin`, else null.'),
    stickied: z.boolean().describe('Pinned in the community.'),
    locked: z.boolean().describe('New comments disabled.'),
    archived: z.boolean().describe('Past archive age: no new comments or votes.'),
    spoiler: z.boolean().describe('Marked as a spoiler.'),
    edited: z.number().nullable().describe('Epoch seconds of the last edit; null if never edited.'),
    numCrossposts: z.int().min(0).describe('Number of crossposts.'),
    crosspostParent: z.string().nullable().describe('Original post id without `t3_` when this is a crosspost.'),
    removedByCategory: z
      .string()
      .nullable()
      .describe(
        'Why removed: `moderator`, `deleted`, `author`, `automod_filtered`, a value for removal by the platform itself, and others; null while visible.',
      ),
    subforumSubscribers: z.int().min(0).describe('Community members when read.'),
    postHint: z.string().nullable().describe('`image`, `link`, `hosted:video`, `self` when the platform says.'),
    isVideo: z.boolean().describe('Hosted video post.'),
  })
  .strict()
  .meta({ id: 'ForumPost' })
  .describe('A forum post, in the forum platform’s own field names.');

export const ForumCommentShape = z
  .object({
    id: z.string().describe('Base-36 comment id without `t1_`.'),
    postId: z.string().describe('Owning post id without `t3_`.'),
    parentId: z.string().describe('The comment or post replied to.'),
    author: z.string().describe('Username without `u/`; `[deleted]` if removed.'),
    body: z.string().describe('Markdown; `[removed]` or `[deleted]` once taken down.'),
    score: z.int().describe('Upvotes minus downvotes.'),
    permalink: z.string().describe('Absolute URL of the comment.'),
    createdUtc: z.number().describe('Creation time in epoch seconds.'),
    createdAt: dateTime.describe('Creation time; the same instant as createdUtc.'),
    subforum: z.string().describe('Community name without `r/`.'),
    isSubmitter: z.boolean().describe("Commenter is the post's author."),
    edited: z.number().nullable().describe('Epoch seconds of the last edit; null if never edited.'),
    distinguished: z.string().nullable().describe('`moderator` or `admin`, else null.'),
    stickied: z.boolean().describe('Pinned under the post.'),
    scoreHidden: z.boolean().describe('While true, `score` means nothing.'),
    linkTitle: z.string().describe('Title of the owning post.'),
    linkAuthor: z.string().describe('Author of the owning post.'),
    linkPermalink: z.string().describe('Absolute URL of the owning post.'),
    numComments: z.int().min(0).describe('Comments on the owning post.'),
    over18: z.boolean().describe('Owning post marked NSFW.'),
  })
  .strict()
  .meta({ id: 'ForumComment' })
  .describe('A forum comment, in the forum platform’s own field names.');

export const SubforumShape = z
  .object({
    id: z.string().describe('Fullname including `t5_`.'),
    name: z.string().describe('Community name without `r/`.'),
    title: z.string().describe('Community title.'),
    description: z.string().nullable().describe('Short public description.'),
    url: z.string().describe('URL of the community.'),
    subscribers: z.int().min(0).describe('Members.'),
    over18: z.boolean().describe('Whole community is NSFW.'),
    createdUtc: z.number().describe('Creation time in epoch seconds.'),
    createdAt: dateTime.describe('Creation time; the same instant as createdUtc.'),
    subforumType: z.string().describe('`public`, `restricted`, `private`, `archived`, `gold_restricted`, `user`.'),
    submissionType: z.string().nullable().describe('`any`, `link`, `self`.'),
    lang: z.string().nullable().describe('Declared language.'),
    quarantine: z.boolean().describe('Hidden from search and listings.'),
    communityIcon: z.string().nullable().describe('Icon URL.'),
    bannerImg: z.string().nullable().describe('Banner image URL.'),
  })
  .strict()
  .meta({ id: 'Subforum' })
  .describe('A forum community (subforum).');

export type ForumPost = z.infer<typeof ForumPostShape>;
export type ForumComment = z.infer<typeof ForumCommentShape>;
export type Subforum = z.infer<typeof SubforumShape>;
