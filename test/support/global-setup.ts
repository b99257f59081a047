import type { TestProject } from 'vitest/node';
import { buildTemplate, type DatabaseTemplate } from './database-template.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplate: DatabaseTemplate;
  }
}

/** Builds the migrated database every test file copies, once per run, and drops it at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { template, drop } = await buildTemplate();
  project.provide('databaseTemplate', template);
  return drop;
}
