import { z } from 'zod';

/**
 * The microblog platform's resources in the spec's own field names. Each shape is defined once here and feeds the
 * mappers' validation, the GraphQL types and the OpenAPI document, so every `.describe()` is a published description.
 * Numeric ids are strings everywhere: they exceed 2^53.
 */

const count = (what: string) => z.int().min(0).nullable().describe(`${what}; null when the platform does not report it`);
const dateTime = z.iso.datetime({ offset: true });

export const MicroblogAuthorShape = z
  .object({
    id: z.string().describe('Numeric account id as a string'),
    username: z.string().describe('Handle without @'),
    name: z.string().describe('Display name'),
    verified: z.boolean().describe('Carries a verification checkmark (paid, organisation, government or legacy)'),
    followersCount: z.int().min(0).describe('Followers when read'),
    profileImageUrl: z.string().nullable().describe('Avatar URL'),
  })
  .describe('The account that published a post')
  .meta({ id: 'MicroblogAuthor' });

export const MicroblogMediaShape = z
  .object({
    id: z.string().describe('Media id'),
    type: z.string().describe('`photo`, `video`, `animated_gif`; new media types may appear'),
    url: z
      .string()
      .nullable()
      .describe('Image for a photo; highest-bitrate MP4 for video or GIF; null when only a stream is offered'),
    previewImageUrl: z.string().nullable().describe('Poster frame for video; null for photos and GIFs'),
  })
  .describe('One attached photo, video or GIF, in display order')
  .meta({ id: 'MicroblogMedia' });

export const MicroblogEntitiesShape = z
  .object({
    hashtags: z.array(z.string()).describe('Hashtags without #'),
    mentions: z.array(z.string()).describe('Mentioned handles without @'),
    urls: z.array(z.string()).describe('Expanded link targets, not short links'),
  })
  .describe('Hashtags, mentions and links in the text')
  .meta({ id: 'MicroblogEntities' });

export const ArticleMediaShape = z
  .object({
    id: z.string().describe('Media id'),
    type: z.string().describe('`photo`, `video`, `animated_gif`; new media types may appear'),
    url: z.string().nullable().describe('Image, or highest-bitrate MP4 for video or GIF'),
    width: z.int().min(0).nullable().describe('Pixels'),
    height: z.int().min(0).nullable().describe('Pixels'),
  })
  .describe('An image or video of an Article')
  .meta({ id: 'ArticleMedia' });

export const ArticleStyleShape = z
  .object({
    offset: z.int().min(0).describe('Start in UTF-16 code units'),
    length: z.int().min(0).describe('Length in UTF-16 code units'),
    style: z.string().describe('`Bold`, `Italic`, `Strikethrough`, and others'),
  })
  .describe('An inline style range of a block')
  .meta({ id: 'ArticleStyle' });

export const ArticleEntityShape = z
  .object({
    offset: z.int().min(0).describe('Start in UTF-16 code units'),
    length: z.int().min(0).describe('Length in UTF-16 code units'),
    type: z
      .string()
      .describe('`LINK`, `MEDIA`, `POST` (embedded post), `DIVIDER`, `MARKDOWN`, or another type added later'),
    url: z.string().nullable().describe('LINK target'),
    mediaIds: z.array(z.string()).describe('MEDIA: ids into `media`, display order'),
    postId: z.string().nullable().describe('Embedded post id'),
    markdown: z.string().nullable().describe('MARKDOWN snippet source'),
  })
  .describe('An entity range of a block: a link, an embed, a divider or a Markdown snippet')
  .meta({ id: 'ArticleEntity' });

export const ArticleBlockShape = z
  .object({
    type: z
      .string()
      .describe(
        '`unstyled`, `header-one`, `header-two`, `header-three`, `unordered-list-item`, `ordered-list-item`, `blockquote`, `code-block`, `atomic` (an embed, see entities); others may appear',
      ),
    text: z.string().describe('Block text'),
    depth: z.int().min(0).describe('Nesting of list items; 0 otherwise'),
    styles: z.array(ArticleStyleShape).describe('Inline styles'),
    entities: z.array(ArticleEntityShape).describe('Links, embeds, dividers and snippets'),
  })
  .describe('One block of an Article body')
  .meta({ id: 'ArticleBlock' });

export const ArticleShape = z
  .object({
    id: z.string().describe("The Article's own id, distinct from the carrying post's id"),
    url: z.string().describe('Article URL'),
    title: z.string().describe('Title'),
    previewText: z.string().nullable().describe('Opening lines shown in a feed'),
    coverImage: ArticleMediaShape.nullable().describe('Cover image'),
    publishedAt: dateTime.nullable().describe('First publication'),
    updatedAt: dateTime.nullable().describe('Last modification'),
    text: z.string().nullable().describe('Full body as plain text; null in lists of posts, where only the preview is sent'),
    markdown: z.string().nullable().describe('Full body as Markdown; null wherever `text` is'),
    blocks: z.array(ArticleBlockShape).nullable().describe('Body in block structure; null wherever `text` is'),
    media: z.array(ArticleMediaShape).describe('Body images and videos in order; empty in lists of posts'),
    postId: z.string().describe('The post carrying the Article'),
    postUrl: z.string().describe('URL of the post carrying the Article'),
    author: MicroblogAuthorShape,
  })
  .describe('A long-form Article carried by a post')
  .meta({ id: 'Article' });

const postMembers = {
  id: z.string().describe('Numeric id as a string (exceeds 2^53)'),
  text: z.string().describe('Full text, untruncated; a repost carries a short `RT @user: ...` form, read `repostedPost`'),
  url: z.string().describe('Post URL'),
  lang: z.string().nullable().describe('BCP-47 tag'),
  createdAt: dateTime.describe('Publication time'),
  conversationId: z.string().nullable().describe('Thread the post belongs to'),
  inReplyToId: z.string().nullable().describe('Post replied to'),
  author: MicroblogAuthorShape,
  likeCount: count('Likes'),
  repostCount: count('Reposts'),
  replyCount: count('Replies'),
  viewCount: count('Views'),
  quoteCount: count('Quotes'),
  bookmarkCount: count('Bookmarks'),
  media: z.array(MicroblogMediaShape).describe('Attached media in display order'),
  entities: MicroblogEntitiesShape,
  article: ArticleShape.nullable().describe(
    'The Article this post carries (preview only: text, markdown and blocks are null; read it through the article operation)',
  ),
};

export const MicroblogPostBaseShape = z
  .object(postMembers)
  .describe('A quoted or reposted post: the members of a post without `quotedPost` and `repostedPost`')
  .meta({ id: 'MicroblogEmbeddedPost' });

export const MicroblogPostShape = z
  .object({
    ...postMembers,
    quotedPost: MicroblogPostBaseShape.nullable().describe('The quoted post when this is a quote post'),
    repostedPost: MicroblogPostBaseShape.nullable().describe(
      'Set when this post is a repost; read the original text and counts here',
    ),
  })
  .describe('A microblog post')
  .meta({ id: 'MicroblogPost' });

export const MicroblogProfileShape = z
  .object({
    id: z.string().describe('Numeric account id as a string'),
    username: z.string().describe('Handle without @'),
    name: z.string().describe('Display name'),
    description: z.string().nullable().describe('Bio, short links replaced by their targets'),
    url: z.string().describe('Profile URL'),
    website: z.string().nullable().describe("The account's website (the link shown on its profile, expanded); null when none"),
    profileImageUrl: z.string().nullable().describe('Avatar URL'),
    profileBannerUrl: z.string().nullable().describe('Banner URL'),
    location: z.string().nullable().describe('Free-text location'),
    verified: z.boolean().describe('Carries a verification checkmark'),
    followersCount: z.int().min(0).describe('Followers'),
    followingCount: z.int().min(0).describe('Accounts followed'),
    statusesCount: z.int().min(0).describe('Posts published'),
    likeCount: z.int().min(0).describe('Posts liked'),
    createdAt: dateTime.describe('Account creation'),
    pinnedPostIds: z.array(z.string()).describe('Pinned posts; usually zero or one'),
    protected: z
      .boolean()
      .describe(
        'True when only approved followers see the posts; posts, replies, media and relationship lists are then unavailable',
      ),
  })
  .describe('A microblog account')
  .meta({ id: 'MicroblogProfile' });

export const AboutDetailsShape = z
  .object({
    id: z.string().describe('Numeric account id'),
    username: z.string().describe('Handle without @'),
    name: z.string().describe('Display name'),
    createdAt: dateTime.describe('Account creation'),
    profileImageUrl: z.string().nullable().describe('Avatar URL'),
    profileImageShape: z
      .string()
      .nullable()
      .describe('`Circle` for people, `Square` for organisations, `Hexagon` for some others'),
    verified: z.boolean().describe('Carries a verification checkmark'),
    protected: z.boolean().nullable().describe('Posts visible to approved followers only'),
    aboutProfile: z
      .object({
        accountBasedIn: z.string().nullable().describe('Country attributed to the account'),
        locationAccurate: z.boolean().nullable().describe('Whether the attributed country is considered accurate'),
        createdCountryAccurate: z.boolean().nullable().describe('Whether the country of creation is considered accurate'),
        source: z.string().nullable().describe('How the account connects to the platform, in its own words'),
        usernameChanges: z
          .object({
            count: z.int().min(0).nullable().describe('Number of username changes'),
            lastChangedAt: dateTime.nullable().describe('Last username change'),
          })
          .describe('Username change history')
          .meta({ id: 'UsernameChanges' }),
      })
      .describe('About-this-account details')
      .meta({ id: 'AboutProfile' })
      .nullable()
      .describe('About-this-account details'),
    verificationInfo: z
      .object({
        isIdentityVerified: z.boolean().nullable().describe('Identity verified by the platform'),
        verifiedSince: dateTime.nullable().describe('Verified since'),
      })
      .describe('Verification details')
      .meta({ id: 'VerificationInfo' })
      .nullable()
      .describe('Verification details'),
  })
  .describe('About-this-account details')
  .meta({ id: 'AboutDetails' });

export const MicroblogListShape = z
  .object({
    id: z.string().describe('Numeric List id'),
    name: z.string().describe('List name'),
    description: z.string().nullable().describe('List description'),
    url: z.string().describe('List URL'),
    createdAt: dateTime.describe('List creation'),
    memberCount: z.int().min(0).describe('Accounts in the List'),
    subscriberCount: z.int().min(0).describe('Accounts following the List'),
    ownerId: z.string().describe('Owner account id'),
    owner: MicroblogAuthorShape.nullable().describe('Owner; null only when the platform omits it'),
  })
  .describe('A public microblog List')
  .meta({ id: 'MicroblogList' });

export const MicroblogSpaceParticipantShape = z
  .object({
    id: z.string().nullable().describe('Numeric account id; null when the platform gives none'),
    username: z.string().describe('Handle without @'),
    name: z.string().describe('Display name'),
    verified: z.boolean().describe('Carries a verification checkmark'),
    profileImageUrl: z.string().nullable().describe('Avatar URL'),
  })
  .describe('A host or speaker of a Space')
  .meta({ id: 'MicroblogSpaceParticipant' });

export const MicroblogSpaceShape = z
  .object({
    id: z.string().describe('Space id (alphanumeric)'),
    url: z.string().describe('Space URL'),
    state: z.string().describe('`NotStarted` (scheduled), `Running`, `Ended`, `Canceled`, `TimedOut`; others may appear'),
    title: z.string().nullable().describe('Title'),
    lang: z.string().nullable().describe('Declared language'),
    createdAt: dateTime.nullable().describe('Creation'),
    scheduledStart: dateTime.nullable().describe('Scheduled start; null when not scheduled'),
    startedAt: dateTime.nullable().describe('Start; null before it started'),
    endedAt: dateTime.nullable().describe('End; null while not ended'),
    participantCount: z.int().min(0).nullable().describe('Participants (listeners and speakers) as reported'),
    isRecorded: z.boolean().nullable().describe('A replay is available or being recorded'),
    hosts: z.array(MicroblogSpaceParticipantShape).describe('Creator and co-hosts'),
    speakers: z.array(MicroblogSpaceParticipantShape).describe('Speakers other than hosts'),
  })
  .describe('A live audio Space')
  .meta({ id: 'MicroblogSpace' });

export const EditHistoryShape = z
  .object({
    postId: z.string().describe('The post asked for'),
    initialPostId: z.string().describe('The first version of the post'),
    latestPostId: z.string().describe('The newest version of the post'),
    editPostIds: z.array(z.string()).describe('Every version id, oldest first'),
    editableUntil: dateTime.nullable().describe('End of the edit window'),
    editsRemaining: z.int().min(0).nullable().describe('Edits still allowed'),
    isEditEligible: z.boolean().nullable().describe('Whether the post may be edited at all'),
    versions: z
      .array(MicroblogPostShape)
      .describe('The versions the platform still returns, oldest first (older versions may be missing)'),
  })
  .describe("A post's edit history")
  .meta({ id: 'MicroblogEditHistory' });

export type MicroblogAuthor = z.infer<typeof MicroblogAuthorShape>;
export type MicroblogMedia = z.infer<typeof MicroblogMediaShape>;
export type MicroblogEntities = z.infer<typeof MicroblogEntitiesShape>;
export type ArticleMedia = z.infer<typeof ArticleMediaShape>;
export type ArticleStyle = z.infer<typeof ArticleStyleShape>;
export type ArticleEntity = z.infer<typeof ArticleEntityShape>;
export type ArticleBlock = z.infer<typeof ArticleBlockShape>;
export type Article = z.infer<typeof ArticleShape>;
export type MicroblogPostBase = z.infer<typeof MicroblogPostBaseShape>;
export type MicroblogPost = z.infer<typeof MicroblogPostShape>;
export type MicroblogProfile = z.infer<typeof MicroblogProfileShape>;
export type AboutDetails = z.infer<typeof AboutDetailsShape>;
export type MicroblogList = z.infer<typeof MicroblogListShape>;
export type MicroblogSpaceParticipant = z.infer<typeof MicroblogSpaceParticipantShape>;
export type MicroblogSpace = z.infer<typeof MicroblogSpaceShape>;
export type EditHistory = z.infer<typeof EditHistoryShape>;
