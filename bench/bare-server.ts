import { createServer } from 'node:http';

/** The baseline: a bare node:http server answering a fixed JSON body of the requested size. */
const size = Number(process.env.BODY_BYTES ?? 400);
const body = JSON.stringify({ data: { pad: 'x'.repeat(Math.max(0, size - 22)) }, meta: {} });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`bare URL: http://127.0.0.1:${(server.address() as { port: number }).port}`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
