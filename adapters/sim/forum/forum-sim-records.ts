/** The simulated forum's own records; the wire encoder turns them into the platform's Things. */

export type SubforumType = 'public' | 'restricted' | 'private' | 'archived' | 'gold_restricted' | 'user';

export interface SimSubforum {
  /** Bare base-36 id; the fullname is `t5_<id>`. */
  id: string;
  name: string;
  title: string;
  description: string;
  type: SubforumType;
  /** Banned communities answer 404 with `reason: "banned"`. */
  banned: boolean;
  quarantine: boolean;
  over18: boolean;
  subscribers: number;
  /** Users online now: what `sort=activity` ranks by. */
  activeUsers: number;
  createdUtc: number;
  submissionType: 'any' | 'link' | 'self';
  lang: string;
  icon: string;
  banner: string;
}

export type PostKind = 'self' | 'link' | 'image' | 'video' | 'gallery' | 'poll' | 'crosspost';

export interface SimPost {
  index: number;
  id: string;
  subforum: string;
  title: string;
  selftext: string;
  author: string;
  createdUtc: number;
  kind: PostKind;
  /** Link target for non-self posts. */
  linkUrl: string | null;
  score: number;
  upvoteRatio: number;
  over18: boolean;
  spoiler: boolean;
  stickied: boolean;
  locked: boolean;
  archived: boolean;
  distinguished: 'moderator' | 'admin' | null;
  edited: number | null;
  removedByCategory: string | null;
  crosspostParent: string | null;
  numCrossposts: number;
  linkFlair: string | null;
  authorFlair: string | null;
  /** Comments generated for this post (the tree is built on first read). */
  generatedComments: number;
  /** Comments added through content control. */
  addedComments: number;
}

export interface SimComment {
  id: string;
  postId: string;
  /** Fullname of the parent: `t3_…` or `t1_…`. */
  parentId: string;
  author: string;
  body: string;
  score: number;
  createdUtc: number;
  edited: number | null;
  distinguished: 'moderator' | 'admin' | null;
  stickied: boolean;
  scoreHidden: boolean;
  depth: number;
  isSubmitter: boolean;
}

export interface SimCommentTree {
  byId: Map<string, SimComment>;
  /** Children per parent fullname, in creation order. */
  children: Map<string, SimComment[]>;
}
