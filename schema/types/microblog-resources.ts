import { z } from 'zod';
import {
  AboutDetailsShape,
  ArticleShape,
  EditHistoryShape,
  MicroblogListShape,
  MicroblogPostBaseShape,
  MicroblogPostShape,
  MicroblogProfileShape,
  MicroblogSpaceShape,
  type AboutDetails,
  type Article,
  type EditHistory,
  type MicroblogList,
  type MicroblogPost,
  type MicroblogPostBase,
  type MicroblogProfile,
  type MicroblogSpace,
} from '../../adapters/shapes/microblog-shapes.ts';
import { objectTypeFromZod } from '../zod-graphql.ts';

/** GraphQL types of the microblog resources, built from the adapters' zod shapes (one description per field). */
export const MicroblogPostType = objectTypeFromZod<MicroblogPost>('MicroblogPost', MicroblogPostShape);
export const MicroblogEmbeddedPostType = objectTypeFromZod<MicroblogPostBase>('MicroblogEmbeddedPost', MicroblogPostBaseShape);
export const MicroblogProfileType = objectTypeFromZod<MicroblogProfile>('MicroblogProfile', MicroblogProfileShape);
export const AboutDetailsType = objectTypeFromZod<AboutDetails>('AboutDetails', AboutDetailsShape);
export const ArticleType = objectTypeFromZod<Article>('Article', ArticleShape);
export const MicroblogListType = objectTypeFromZod<MicroblogList>('MicroblogList', MicroblogListShape);
export const MicroblogSpaceType = objectTypeFromZod<MicroblogSpace>('MicroblogSpace', MicroblogSpaceShape);
export const MicroblogEditHistoryType = objectTypeFromZod<EditHistory>('MicroblogEditHistory', EditHistoryShape);

const nextCursor = z.string().nullable().describe('Cursor of the next page; null is the only end.');
const notFound = z
  .array(z.string())
  .describe('Ids asked for that came back empty (deleted, suspended, protected, withheld or never existed), in request order. Not billed.');

export const MicroblogPostPageShape = z
  .object({ items: z.array(MicroblogPostShape).describe('Posts of this page.'), nextCursor })
  .describe('One page of microblog posts.')
  .meta({ id: 'MicroblogPostPage' });

export const MicroblogProfilePageShape = z
  .object({ items: z.array(MicroblogProfileShape).describe('Accounts of this page.'), nextCursor })
  .describe('One page of microblog accounts.')
  .meta({ id: 'MicroblogProfilePage' });

export const MicroblogPostLookupShape = z
  .object({ items: z.array(MicroblogPostShape).describe('Posts found, in request order.'), notFound })
  .describe('Posts by id.')
  .meta({ id: 'MicroblogPostLookup' });

export const MicroblogProfileLookupShape = z
  .object({ items: z.array(MicroblogProfileShape).describe('Accounts found, in request order.'), notFound })
  .describe('Accounts by id.')
  .meta({ id: 'MicroblogProfileLookup' });

export type MicroblogPostPage = z.infer<typeof MicroblogPostPageShape>;
export type MicroblogProfilePage = z.infer<typeof MicroblogProfilePageShape>;
export type MicroblogPostLookup = z.infer<typeof MicroblogPostLookupShape>;
export type MicroblogProfileLookup = z.infer<typeof MicroblogProfileLookupShape>;

export const MicroblogPostPageType = objectTypeFromZod<MicroblogPostPage>('MicroblogPostPage', MicroblogPostPageShape);
export const MicroblogProfilePageType = objectTypeFromZod<MicroblogProfilePage>('MicroblogProfilePage', MicroblogProfilePageShape);
export const MicroblogPostLookupType = objectTypeFromZod<MicroblogPostLookup>('MicroblogPostLookup', MicroblogPostLookupShape);
export const MicroblogProfileLookupType = objectTypeFromZod<MicroblogProfileLookup>('MicroblogProfileLookup', MicroblogProfileLookupShape);
