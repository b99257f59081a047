import { join } from 'node:path';
import type { ServiceConfig } from './config.ts';
import { DEMO_KEY_FILE, DEMO_PERSON_FILE } from './demo-workspace.ts';
import type { RunningService } from './start.ts';

export type BannerService = Pick<RunningService, 'url' | 'operatorUrl' | 'version' | 'demo'> & { platforms: { simulated: Record<string, string> } };

/**
 * What `node server.ts` prints once it listens. The banner shares stdout with the JSON logs, which production ships
 * to log aggregation: there the demo key and password are never printed, only the files (mode 600) holding them. The
 * embedded default prints them, so a newcomer's first curl and sign-in need nothing else (README).
 */
export function startupBanner(service: BannerService, config: Pick<ServiceConfig, 'dataDir' | 'databaseUrl' | 'graphiql'>, production: boolean): string[] {
  const keyFile = join(config.dataDir, DEMO_KEY_FILE);
  const personFile = join(config.dataDir, DEMO_PERSON_FILE);
  const lines = [
    `Conversation Data Service ${service.version}`,
    `  base URL:  ${service.url}`,
    `  GraphiQL:  ${config.graphiql ? `${service.url}/graphql` : 'off in production (docs/api-conventions.md)'}`,
    `  OpenAPI:   ${service.url}/openapi.json`,
    `  MCP:       ${service.url}/mcp`,
    `  operator:  ${service.operatorUrl}  (operator API, for npm run admin)`,
    `  database:  ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`}`,
    ...Object.entries(service.platforms.simulated).map(([name, url]) => `  simulated ${name}: ${url}`),
    `  dashboard: ${service.url}/dashboard`,
  ];
  const { demo } = service;
  if (!demo) return lines;
  return [
    ...lines,
    production ? `  demo key:  in ${keyFile}  (mode 600; never printed in production)` : `  demo key:  ${demo.key}  (also in ${keyFile})`,
    production ? `  demo sign-in: ${demo.person.email}, password in ${personFile}  (mode 600)` : `  demo sign-in: ${demo.person.email} / ${demo.person.password}  (also in ${personFile})`,
    `  try:       curl -H "Authorization: Bearer $(cat ${keyFile})" ${service.url}/v1/whoami`,
  ];
}
