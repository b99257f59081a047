import { configFromEnv } from './service/config.ts';
import { startService } from './service/start.ts';

// The project installs Node 24 itself (the `node` devDependency); refuse to run on anything else rather than
// misbehave subtly on the machine's older Node.
if (!process.version.startsWith('v24.')) {
  console.error(`This service needs Node.js 24 (found ${process.version}). Run it with \`npm start\`, which uses the project's own Node 24.`);
  process.exit(1);
}

try {
  // Inside the try: a refused configuration is one "Failed to start" line, like every other refusal.
  const config = configFromEnv();
  const service = await startService(config);
  console.log(`Conversation Data Service ${service.version}`);
  console.log(`  base URL:  ${service.url}`);
  console.log(`  GraphiQL:  ${service.url}/graphql`);
  console.log(`  OpenAPI:   ${service.url}/openapi.json`);
  console.log(`  MCP:       ${service.url}/mcp`);
  console.log(`  operator:  ${service.operatorUrl}  (operator API, for npm run admin)`);
  console.log(`  database:  ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`}`);
  for (const [name, url] of Object.entries(service.platforms.simulated)) console.log(`  simulated ${name}: ${url}`);
  console.log(`  dashboard: ${service.url}/dashboard`);
  if (service.demo) {
    console.log(`  demo key:  ${service.demo.key}  (also in ${config.dataDir}/demo-key)`);
    console.log(`  demo sign-in: ${service.demo.person.email} / ${service.demo.person.password}  (also in ${config.dataDir}/demo-person)`);
    console.log(`  try:       curl -H "Authorization: Bearer $(cat ${config.dataDir}/demo-key)" ${service.url}/v1/whoami`);
  }
  const shutdown = (signal: string) => {
    console.log(`${signal}: shutting down`);
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
} catch (error) {
  console.error(`Failed to start: ${(error as Error).message}`);
  process.exit(1);
}
