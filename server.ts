import { configFromEnv, isProduction } from './service/config.ts';
import { startupBanner } from './service/banner.ts';
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
  for (const line of startupBanner(service, config, isProduction(process.env))) console.log(line);
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
