import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

function compactUtc(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * The build string `<build_hash>-<timestamp>`: the commit's short hash and its commit time, so every
 * instance of one build reports the same version. Outside a git checkout: `dev-<start time>`.
 */
export function buildVersion(now: Date = new Date()): string {
  try {
    const [hash, seconds] = execFileSync('git', ['log', '-1', '--format=%h %ct'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split(' ');
    if (hash && seconds) return `${hash}-${compactUtc(new Date(Number(seconds) * 1000))}`;
  } catch {
    // Not a checkout (e.g. a packaged build): fall through.
  }
  return `dev-${compactUtc(now)}`;
}
