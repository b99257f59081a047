import type { Client } from 'pg';

/**
 * An instance is present on the database while its key change feed's connection is: that connection carries the
 * application_name `svc-instance <instance id> <settings fingerprint>`, set once it listens. PostgreSQL lists it in
 * pg_stat_activity for exactly as long as the session lives, so a crashed instance drops out the moment its
 * connection closes, with no heartbeat to expire. (Every instance connects as the same role, which sees the
 * application_name of its own sessions.)
 */
const PREFIX = 'svc-instance ';
/** Held while an instance compares its settings and names itself, so two starting at once cannot both pass. */
const PRESENCE_LOCK = `hashtext('svc-instance presence')`;
/** An instance that shares no settings (a test's bare feed) takes no part in the comparison. */
const NO_SETTINGS = '-';

export interface InstanceSettings {
  /** A short fingerprint (no spaces, at most 16 characters) of what every instance on the database must share. */
  fingerprint: string;
  /** Why this instance refuses to start beside one whose fingerprint is `theirs`. */
  refusal(theirs: string): string;
}

/** Settings that differ from a live instance's: the instance must not start. */
export class InstanceSettingsRefusal extends Error {}

const PRESENT = `select "application_name" from "pg_stat_activity"
  where "datname" = current_database() and "application_name" like '${PREFIX}%' and "pid" <> pg_backend_pid()`;

/** Names this connection as the instance, once it listens; throws InstanceSettingsRefusal when a live instance runs other settings. */
export async function announce(client: Client, instanceId: string, settings: InstanceSettings | undefined): Promise<void> {
  const fingerprint = settings?.fingerprint ?? NO_SETTINGS;
  await client.query(`select pg_advisory_lock(${PRESENCE_LOCK})`);
  try {
    if (settings) {
      const { rows } = await client.query<{ application_name: string }>(PRESENT);
      const theirs = rows.map((row) => row.application_name.split(' ')[2] ?? NO_SETTINGS).find((other) => other !== NO_SETTINGS && other !== fingerprint);
      if (theirs !== undefined) throw new InstanceSettingsRefusal(settings.refusal(theirs));
    }
    await client.query(`select set_config('application_name', $1, false)`, [`${PREFIX}${instanceId} ${fingerprint}`]);
  } finally {
    await client.query(`select pg_advisory_unlock(${PRESENCE_LOCK})`);
  }
}

/** The instances present on the database now, this one included. */
export async function liveInstances(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ application_name: string }>(`select "application_name" from "pg_stat_activity"
    where "datname" = current_database() and "application_name" like '${PREFIX}%'`);
  return rows.map((row) => row.application_name.split(' ')[1]!);
}
