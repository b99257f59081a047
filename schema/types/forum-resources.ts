import { z } from 'zod';
import { ForumCommentShape, ForumPostShape, SubforumShape, type ForumComment, type ForumPost, type Subforum } from '../../adapters/shapes/forum-shapes.ts';
import { objectTypeFromZod } from '../zod-graphql.ts';

/** GraphQL types of the forum resources, built from the adapters' zod shapes (one description per field). */
export const ForumPostType = objectTypeFromZod<ForumPost>('ForumPost', ForumPostShape);
export const ForumCommentType = objectTypeFromZod<ForumComment>('ForumComment', ForumCommentShape);
export const SubforumType = objectTypeFromZod<Subforum>('Subforum', SubforumShape);

const nextCursor = z.string().nullable().describe('Cursor of the next page; null is the only end.');
const omittedNsfw = z
  .int()
  .min(0)
  .nullable()
  .describe('Items removed from this page as NSFW because includeNsfw is false; null (absent from meta) when none were.');

export const ForumPostPageShape = z
  .object({ items: z.array(ForumPostShape).describe('Posts of this page.'), nextCursor, omittedNsfw })
  .meta({ id: 'ForumPostPage' })
  .describe('One page of forum posts.');

export const ForumCommentPageShape = z
  .object({
    items: z.array(ForumCommentShape).describe('Comments of this page: parents before their replies, siblings in the sort order.'),
    nextCursor,
  })
  .meta({ id: 'ForumCommentPage' })
  .describe("One page of a post's comment tree.");

export const SubforumPageShape = z
  .object({ items: z.array(SubforumShape).describe('Communities of this page.'), nextCursor, omittedNsfw })
  .meta({ id: 'SubforumPage' })
  .describe('One page of communities.');

export const ForumLookupDataShape = z
  .object({
    posts: z.array(ForumPostShape).describe('Posts found, in request order.'),
    comments: z.array(ForumCommentShape).describe('Comments found, in request order.'),
    subforums: z.array(SubforumShape).describe('Publicly readable communities found, in request order.'),
  })
  .describe('Current state of the items asked for.');

export const ForumLookupShape = ForumLookupDataShape.extend({
  missing: z
    .array(z.string())
    .describe('Items asked for and not returned, as `t3_<id>`, `t1_<id>` or `r/<name>`: deleted, nonexistent or not publicly readable. Not billed.'),
})
  .meta({ id: 'ForumLookup' })
  .describe('Result of a forum lookup.');

export type ForumPostPage = z.infer<typeof ForumPostPageShape>;
export type ForumCommentPage = z.infer<typeof ForumCommentPageShape>;
export type SubforumPage = z.infer<typeof SubforumPageShape>;
export type ForumLookup = z.infer<typeof ForumLookupShape>;

export const ForumPostPageType = objectTypeFromZod<ForumPostPage>('ForumPostPage', ForumPostPageShape);
export const ForumCommentPageType = objectTypeFromZod<ForumCommentPage>('ForumCommentPage', ForumCommentPageShape);
export const SubforumPageType = objectTypeFromZod<SubforumPage>('SubforumPage', SubforumPageShape);
export const ForumLookupType = objectTypeFromZod<ForumLookup>('ForumLookup', ForumLookupShape);
