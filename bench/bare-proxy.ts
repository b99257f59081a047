import { createServer } from 'node:http';
import { Pool } from 'undici';

/**
 * The ceiling of any read: a bare node:http server that makes one undici hop to the simulated forum in another
 * process (the same `/api/info` call the service makes for one post), parses the answer and serves a small JSON.
 */
const upstream = new URL(process.env.FORUM_UPSTREAM_URL ?? 'http://127.0.0.1:4010');
const path = `/api/info?id=t3_${process.env.POST_ID ?? '1a00005'}&raw_json=1`;
const pool = new Pool(upstream.origin, { connections: 64, pipelining: 1 });

interface Listing {
  data: { children: Array<{ data: { id: string; title: string; subreddit: string; score: number; created_utc: number } }> };
}

const server = createServer(async (_req, res) => {
  try {
    const answer = await pool.request({ method: 'GET', path });
    const listing = (await answer.body.json()) as Listing;
    const post = listing.data.children[0]!.data;
    const body = JSON.stringify({ data: { id: post.id, title: post.title, subforum: post.subreddit, score: post.score, createdUtc: post.created_utc }, meta: {} });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  } catch (error) {
    res.writeHead(502).end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => console.log(`proxy URL: http://127.0.0.1:${(server.address() as { port: number }).port}`));
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
