import pg from 'pg';

/** One statement on the server of `serverUrl` on a connection of its own (create and drop the bench's databases). */
export async function adminSql(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
