// Which local database a command may open (issue 47, item 5): the CLI never guesses. DATABASE_URL, or
// an embedded (PGlite) data directory that already holds a database (SITELINE_DATA_DIR, else
// ./.siteline). Only the commands meant to create one (`data import`, and `npm start`) open a data
// directory that does not exist yet; every other one refuses with one line naming where it looked,
// instead of creating a new, empty 41 MB database in whatever directory it was run from.
import fs from 'node:fs';
import path from 'node:path';

/** The embedded data directory the environment names (absolute). */
export function embeddedDataDir(env: NodeJS.ProcessEnv): string {
  return path.resolve(env.SITELINE_DATA_DIR || './.siteline');
}

/** True when the data directory already holds an embedded database. */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'));
}

/** Undefined when there is a database to open; otherwise the sentence saying where the command looked. */
export function missingDatabase(env: NodeJS.ProcessEnv): string | undefined {
  if (env.DATABASE_URL) return undefined;
  const dir = embeddedDataDir(env);
  if (embeddedDatabaseExists(dir)) return undefined;
  return `no database: DATABASE_URL is not set and ${dir} holds no siteline database (SITELINE_DATA_DIR${env.SITELINE_DATA_DIR ? '' : ' is not set; the default is ./.siteline in the current directory'}). Run it where the service keeps its data, set SITELINE_DATA_DIR or DATABASE_URL, or create one with \`siteline data import <place>\` or \`npm start\``;
}
