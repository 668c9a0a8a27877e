// Filled in by the importer work: imports the default places when the database holds none.
import type { AppContext } from '../context.ts';
export async function ensureDefaultPlaces(_ctx: AppContext): Promise<void> {
  throw new Error('importer not built yet');
}
