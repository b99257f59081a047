import { startForumSim } from './forum/forum-sim.ts';
import { startMicroblogSim } from './microblog/microblog-sim.ts';

/**
 * `npm run sim`: both simulated platforms as one standalone process for benchmarks and demos.
 * SIM_SIZE (small | large, default large), SIM_SEED (default 1), FORUM_SIM_PORT (default 4010),
 * MICROBLOG_SIM_PORT (default 4020), SIM_FORUM_RATE_LIMIT (requests per 10-minute window, default 100,000).
 */
const size = process.env.SIM_SIZE === 'small' ? 'small' : 'large';
const seed = Number(process.env.SIM_SEED ?? 1);
const rateLimit = process.env.SIM_FORUM_RATE_LIMIT ? Number(process.env.SIM_FORUM_RATE_LIMIT) : undefined;
const forum = await startForumSim({ seed, size, port: Number(process.env.FORUM_SIM_PORT ?? 4010), rateLimit });
console.log(`forum sim (${size}, seed ${seed}, ${forum.world.allPosts().length} posts, built in ${forum.world.generationMs.toFixed(0)} ms): ${forum.url}`);
const microblog = await startMicroblogSim({ seed, size, port: Number(process.env.MICROBLOG_SIM_PORT ?? 4020) });
console.log(`microblog sim (${size}, seed ${seed}, built in ${microblog.generationMs.toFixed(0)} ms): ${microblog.url}`);
console.log(`  FORUM_UPSTREAM_URL=${forum.url}`);
console.log(`  MICROBLOG_UPSTREAM_URL=${microblog.url}`);

const stop = async () => {
  await Promise.all([forum.close(), microblog.close()]);
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
