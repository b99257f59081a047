import type { MicroblogProfilePage } from './microblog-resources.ts';
import { authorProfile, profileFollowers } from '../../resolvers/microblog/microblog-walks.ts';
import { builder } from '../builder.ts';
import { MicroblogEmbeddedPostType, MicroblogPostType, MicroblogProfilePageType, MicroblogProfileType } from './microblog-resources.ts';

/** Walkable GraphQL-only fields; they are not part of the REST/MCP payloads (those come from the shapes). */
for (const ref of [MicroblogPostType, MicroblogEmbeddedPostType]) {
  builder.objectField(ref as typeof MicroblogEmbeddedPostType, 'authorProfile', (t) =>
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
    resolve: (profile, args, ctx, info): Promise<MicroblogProfilePage> => profileFollowers(profile, args, ctx, info),
  }),
);
