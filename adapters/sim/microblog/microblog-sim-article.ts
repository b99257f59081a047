import type { MicroblogWorld, SimArticle, SimArticleBlock, SimMedia, SimPost } from './microblog-world.ts';

type Entity = SimArticle['entityMap'][number]['value'];

/**
 * The showcase Article: every block type and every entity type the spec names (LINK, MEDIA, embedded post,
 * DIVIDER, MARKDOWN) plus the platform's TWEMOJI, with styles after astral characters so that code-point offsets
 * differ from UTF-16 ones.
 */
export function buildShowcaseArticle(world: MicroblogWorld, post: SimPost, embeddedPostId: string, at: number): SimArticle {
  const entityMap: SimArticle['entityMap'] = [];
  const entity = (value: Entity): number => {
    entityMap.push({ key: String(entityMap.length), value });
    return entityMap.length - 1;
  };
  const image: SimMedia = { id: world.nextId(at - 5000), type: 'photo', width: 1200, height: 675, durationMs: 0, streamOnly: false };
  const clip: SimMedia = { id: world.nextId(at - 4000), type: 'video', width: 1280, height: 720, durationMs: 30_000, streamOnly: false };
  const cover: SimMedia = { id: world.nextId(at - 6000), type: 'photo', width: 1024, height: 410, durationMs: 0, streamOnly: false };
  let n = 0;
  const block = (type: string, text: string, extra: Partial<SimArticleBlock> = {}): SimArticleBlock => ({
    key: `b${(n++).toString(36)}`,
    type,
    text,
    depth: 0,
    inlineStyleRanges: [],
    entityRanges: [],
    data: {},
    ...extra,
  });
  const atomic = (value: Entity) => block('atomic', ' ', { entityRanges: [{ key: entity(value), offset: 0, length: 1 }] });
  const twemoji = entity({ type: 'TWEMOJI', mutability: 'Immutable', data: { url: 'https://abs.twimg.com/emoji/v2/svg/1f680.svg' } });
  const link = entity({ type: 'LINK', mutability: 'Mutable', data: { url: 'https://example.com/guide' } });
  const blocks: SimArticleBlock[] = [
    block('header-one', 'Building on the Sim API'),
    block('unstyled', '🚀 Bold start, italic middle and struck end.', {
      // Code points: the rocket is one code point but two UTF-16 units.
      inlineStyleRanges: [
        { offset: 2, length: 10, style: 'Bold' },
        { offset: 14, length: 13, style: 'Italic' },
        { offset: 32, length: 10, style: 'Strikethrough' },
      ],
      entityRanges: [{ key: twemoji, offset: 0, length: 1 }],
    }),
    block('unstyled', 'Read the guide or visit example.org/docs for more.', {
      entityRanges: [{ key: link, offset: 9, length: 5 }],
      data: { urls: [{ fromIndex: 24, toIndex: 40, text: 'example.org/docs' }] },
    }),
    block('header-two', 'Setup'),
    block('ordered-list-item', 'Create a key'),
    block('ordered-list-item', 'Scopes: read only', { depth: 1 }),
    block('ordered-list-item', 'Call the API'),
    block('unordered-list-item', 'Fast'),
    block('unordered-list-item', 'Nested detail', { depth: 1 }),
    block('header-three', 'Quote and code'),
    block('blockquote', 'Ship small, ship often.'),
    block('code-block', 'const client = createClient();'),
    block('code-block', 'await client.search("cats");'),
    atomic({ type: 'DIVIDER', mutability: 'Immutable', data: {} }),
    atomic({ type: 'MARKDOWN', mutability: 'Mutable', data: { markdown: '```bash\ncurl https://api.example.com\n```' } }),
    atomic({ type: 'MEDIA', mutability: 'Immutable', data: { mediaItems: [{ mediaId: image.id, mediaCategory: 'DraftTweetImage' }, { mediaId: clip.id, mediaCategory: 'DraftTweetVideo' }] } }),
    atomic({ type: 'TWEET', mutability: 'Immutable', data: { tweetId: embeddedPostId } }),
    block('unstyled', 'Thanks for reading & see you soon <3'),
  ];
  const text = blocks.filter((b) => b.type !== 'atomic').map((b) => b.text).join(' ');
  return {
    id: world.nextId(at - 7000),
    postId: post.id,
    title: 'Building on the Sim API 🚀',
    previewText: text.slice(0, 200),
    cover,
    blocks,
    entityMap,
    media: [image, clip],
    publishedAt: Math.floor(at / 1000) - 600,
    updatedAt: Math.floor(at / 1000),
  };
}
