// `npm start`: the service on $HOST:$PORT, embedded PGlite unless DATABASE_URL is set.
import { runServiceProcess } from './service-process.ts';

runServiceProcess().catch((err) => {
  process.stderr.write(`siteline failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
