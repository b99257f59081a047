import { z } from 'zod';
import { MicroblogPostBaseShape, MicroblogPostShape, MicroblogProfileShape, type MicroblogPostBase, type MicroblogProfile } from '../adapters/shapes/microblog-shapes.ts';
import { authorProfile, profileFollowers } from '../resolvers/microblog/microblog-walks.ts';
import { builder } from './builder.ts';
import { page, payloadOf } from './catalogue/payload.ts';
import { objectTypeFromZod } from './zod-graphql.ts';

const MicroblogPostType = objectTypeFromZod<MicroblogPostBase>('MicroblogPost', MicroblogPostShape);
const MicroblogEmbeddedPostType = objectTypeFromZod<MicroblogPostBase>('MicroblogEmbeddedPost', MicroblogPostBaseShape);
const MicroblogProfileType = objectTypeFromZod<MicroblogProfile>('MicroblogProfile', MicroblogProfileShape);
const MicroblogProfilePageType = objectTypeFromZod('MicroblogProfilePage', payloadOf(z.array(MicroblogProfileShape), page()) as z.ZodObject);

/** Walkable GraphQL-only fields; they are not part of the REST/MCP payloads (those come from the shapes). */
for (const ref of [MicroblogPostType, MicroblogEmbeddedPostType]) {
  builder.objectField(ref, 'authorProfile', (t) =>
    t.field({
      type: MicroblogProfileType,
      nullable: true,
      description: "The author's full profile (batched with every other author of the result; billed as a profile). Null when the account is unavailable.",
      resolve: (post, _args, ctx, info) => authorProfile(post, ctx, info),
    }),
  );
}

builder.objectField(MicroblogProfileType, 'followers', (t) =>
  t.field({
    type: MicroblogProfilePageType,
    // Nullable: when this page fails (a protected account, a bad cursor) the profile around it is still served.
    nullable: true,
    description: 'Followers, most recent first, one platform page at a time (billed per account). Null, with an error, for a protected account or a bad cursor.',
    args: { cursor: t.arg.string({ required: false, description: '`nextCursor` of the previous page of this field.' }) },
    resolve: (profile, args, ctx, info) => profileFollowers(profile, args, ctx, info) as never,
  }),
);
