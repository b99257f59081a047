import { startForumSim } from './forum/forum-sim.ts';

/**
 * `npm run sim`: the simulated platforms as a standalone process for benchmarks and demos.
 * SIM_SIZE (small | large, default large), SIM_SEED (default 1), FORUM_SIM_PORT (default 4010).
 */
const size = process.env.SIM_SIZE === 'small' ? 'small' : 'large';
const seed = Number(process.env.SIM_SEED ?? 1);
const forum = await startForumSim({ seed, size, port: Number(process.env.FORUM_SIM_PORT ?? 4010) });
console.log(`forum sim (${size}, seed ${seed}, ${forum.world.allPosts().length} posts, built in ${forum.world.generationMs.toFixed(0)} ms): ${forum.url}`);
console.log(`  FORUM_UPSTREAM_URL=${forum.url}`);

const stop = async () => {
  await forum.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
