import type { ForumWorld } from './forum/forum-world.ts';
import type { SimPost as ForumPost } from './forum/forum-sim-records.ts';
import type { MicroblogWorld, SimPost as MicroblogPost } from './microblog/microblog-world.ts';
import { createRng, type Rng } from './rng.ts';

/**
 * Keeps the simulated platforms alive for a demo: at a gentle, seeded pace it publishes posts and comments on popular
 * topics, edits some, crossposts and reposts others, through the same world methods the control routes use, so a
 * newcomer's first monitor finds new items within minutes and their first searches for common words find something.
 */

const TOPICS = [
  'rust', 'python', 'typescript', 'javascript', 'golang', 'kubernetes', 'postgres', 'linux', 'ai', 'machine learning',
  'open source', 'music', 'football', 'basketball', 'gaming', 'movies', 'coffee', 'travel', 'climate', 'space',
  'photography', 'cooking', 'books', 'startups', 'security', 'privacy', 'news', 'science', 'history', 'design',
] as const;

const OPENERS = ['What do you think about', 'I just learned', 'Why is everyone talking about', 'A short guide to', 'Weekly thread:', 'Hot take on', 'Best resources for', 'News:'];
const BODIES = [
  'I have been reading about {t} all week and the community here is the best place to ask.',
  'Here is what I found: the {t} ecosystem moves fast, and the docs are better than they used to be.',
  'Does anyone have a good introduction to {t}? I want to start this weekend.',
  'The latest release changes a lot for {t}. What are your first impressions?',
  'My take: {t} is worth learning, but the first month is hard. Tips welcome.',
];
const COMMENTS = ['Great point about {t}.', 'I disagree, {t} is overrated.', 'Thanks, this helped me with {t}!', 'Any links on {t}?', 'Same here, {t} changed my workflow.'];

function fill(rng: Rng, template: string, topic: string): string {
  return template.replace('{t}', topic);
}

export interface PublisherOptions {
  seed?: number;
  /** Pause between steps; default 20 s. */
  intervalMs?: number;
  /** Steps taken at once when started (default 500), so a new world already has topical content. */
  burst?: number;
}

export interface SimPublisher {
  /** Takes `n` deterministic steps now (tests and the control route call this). */
  step(n?: number): void;
  stop(): void;
}

/** Publishes on both worlds; `start` runs it on a timer, `createSimPublisher` alone never schedules anything. */
export function createSimPublisher(forum: ForumWorld, microblog: MicroblogWorld, seed = 20_261_124): SimPublisher {
  const rng = createRng(seed);
  const forumPosts: ForumPost[] = [];
  const microblogPosts: MicroblogPost[] = [];
  const subforums = forum.allSubforums().filter((sub) => sub.type === 'public' && !sub.banned && !sub.quarantine && !sub.over18);
  const authors = [...microblog.users.values()].filter((user) => !user.protected && !user.suspended);

  const actions: Array<[number, () => void]> = [
    [35, () => {
      const topic = rng.pick(TOPICS);
      const body = `${fill(rng, rng.pick(BODIES), topic)} ${fill(rng, rng.pick(BODIES), rng.pick(TOPICS))}`;
      forumPosts.push(forum.addPost({ subforum: rng.pick(subforums).name, title: `${rng.pick(OPENERS)} ${topic}`, selftext: body, author: `${topic.replace(/\W+/g, '_').slice(0, 12)}_fan` }));
    }],
    [20, () => {
      const post = rng.pick(forumPosts);
      forum.addComment({ postId: post.id, body: fill(rng, rng.pick(COMMENTS), rng.pick(TOPICS)) });
    }],
    [5, () => {
      const post = rng.pick(forumPosts);
      forum.editPost(post.id, { selftext: `${post.selftext} Edit: thanks for all the replies!` });
    }],
    [5, () => {
      const post = rng.pick(forumPosts);
      forumPosts.push(forum.addPost({ subforum: rng.pick(subforums).name, title: post.title, selftext: post.selftext, crosspostOf: post.id }));
    }],
    [25, () => {
      const topic = rng.pick(TOPICS);
      microblogPosts.push(microblog.addPost({ authorId: rng.pick(authors).id, text: `${fill(rng, rng.pick(BODIES), topic)} #${topic.replace(/\W+/g, '')}` }));
    }],
    [5, () => {
      const parent = rng.pick(microblogPosts);
      microblogPosts.push(microblog.addPost({ authorId: rng.pick(authors).id, text: fill(rng, rng.pick(COMMENTS), rng.pick(TOPICS)), inReplyToId: parent.id }));
    }],
    [5, () => {
      const original = rng.pick(microblogPosts);
      const reposter = rng.pick(authors);
      if (reposter.id !== original.authorId) microblog.repost(reposter.id, original.id);
    }],
  ];
  const total = actions.reduce((sum, [weight]) => sum + weight, 0);

  const once = (): void => {
    // The first posts come before anything that needs an earlier one.
    if (!forumPosts.length) return actions[0][1]();
    if (!microblogPosts.length) return actions[4][1]();
    let roll = rng.int(0, total - 1);
    const [, act] = actions.find(([weight]) => (roll -= weight) < 0) ?? actions[0];
    try {
      act();
    } catch {
      // A world may refuse (a test deleted the post this step picked): the next step carries on.
    }
  };
  return {
    step: (n = 1) => {
      for (let i = 0; i < n; i++) once();
    },
    stop: () => {},
  };
}

/** The publisher on a timer: a burst now, then one step every `intervalMs`. */
export function startSimPublisher(forum: ForumWorld, microblog: MicroblogWorld, options: PublisherOptions = {}): SimPublisher {
  const publisher = createSimPublisher(forum, microblog, options.seed);
  publisher.step(options.burst ?? 500);
  const timer = setInterval(() => publisher.step(), options.intervalMs ?? 20_000);
  timer.unref();
  return { step: publisher.step, stop: () => clearInterval(timer) };
}
