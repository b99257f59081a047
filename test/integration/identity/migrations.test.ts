import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { initOrm, pingDatabase, type Orm } from '../../../adapters/db/orm.ts';
import { MIGRATIONS } from '../../../adapters/db/migrations/index.ts';
import { createTestDatabase } from '../../support/database.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

describe('database migrations', () => {
  // Empty, not the run's migrated template: this file proves the migrations themselves.
  const migrated = useMigratedOrm({ empty: true });

  it('applies every committed migration, in order', async () => {
    const executed = await migrated.orm.migrator.getExecuted();
    expect(executed.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(await migrated.orm.migrator.getPending()).toEqual([]);
  });

  it('creates the identity tables', async () => {
    const rows = await migrated.orm.em
      .getConnection()
      .execute<{ table_name: string }[]>(
        "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
      );
    const tables = rows.map((row) => row.table_name);
    expect(tables).toEqual(expect.arrayContaining(['person', 'workspace', 'membership', 'api_key']));
  });

  it('leaves no difference between the identity entities and the migrated schema', async () => {
    // Migrations are hand-written: this is what catches an entity and its migration drifting apart.
    // Scoped to the identity tables; each domain owns the agreement of its own entities and migrations.
    const diff = await migrated.orm.schema.getUpdateSchemaSQL({ wrap: false });
    const identityStatements = diff
      .split(/;\s*\n/)
      .map((statement) => statement.trim())
      .filter((statement) => /"(person|workspace|membership|api_key)"/.test(statement));
    expect(identityStatements).toEqual([]);
  });

  it('is idempotent: a second start applies nothing and keeps the data', async () => {
    await migrated.orm.em.getConnection().execute("insert into person (id, email, name, created_at) values ('00000000-0000-4000-8000-000000000001', 'kept@example.com', 'Kept', now())");
    await migrated.reopen();
    expect((await migrated.orm.migrator.getExecuted()).length).toBe(MIGRATIONS.length);
    const rows = await migrated.orm.em.getConnection().execute<{ email: string }[]>('select email from person');
    expect(rows.map((row) => row.email)).toEqual(['kept@example.com']);
  });

  it('answers the readiness ping', async () => {
    expect(await pingDatabase(migrated.orm)).toBe(true);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('instances starting together on an empty database (PostgreSQL; PGlite has one owner)', () => {
  it('migrate one after the other under the advisory lock: every migration applied once, no start fails', async () => {
    const empty = await createTestDatabase({ empty: true });
    const orms: Orm[] = [];
    try {
      const started = await Promise.allSettled(Array.from({ length: 3 }, () => initOrm({ databaseUrl: empty.databaseUrl })));
      for (const result of started) if (result.status === 'fulfilled') orms.push(result.value);
      expect(started.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const executed = await orms[0].migrator.getExecuted();
      expect(executed.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      for (const orm of orms) await orm.close(true);
      await empty.drop();
    }
  });
});

describe('readiness ping on an unavailable database', () => {
  it('reports false at once when nothing listens', async () => {
    const orm = await initOrm({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', migrate: false });
    try {
      expect(await pingDatabase(orm, 500)).toBe(false);
    } finally {
      await orm.close(true);
    }
  });

  it('reports false within its timeout when the server accepts but never answers', async () => {
    const accepted = new Set<Socket>();
    const silent = createServer((socket) => accepted.add(socket));
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
    const { port } = silent.address() as AddressInfo;
    const orm = await initOrm({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/none`, migrate: false });
    try {
      const started = performance.now();
      expect(await pingDatabase(orm, 300)).toBe(false);
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      // Hung up once the ping has answered: otherwise closing the pool sits out the driver's 5 s connect timeout.
      for (const socket of accepted) socket.destroy();
      await orm.close(true);
      silent.close();
    }
  });
});
