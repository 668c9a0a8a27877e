// Each status as a person reads it, one table for every surface: the web's badges, the coverage page,
// and the first text block of an MCP answer (the summary a text-only client shows first).
import { STATUS_MEANINGS, type Status } from './statuses.ts';
import { VALUE_STATUS_WORDS } from './value-words.ts';

/** A status in a few words (the raw code is kept beside it for agents and search). */
export const STATUS_LABELS: Record<Status, string> = {
  live: 'live',
  live_unavailable: 'live, data unavailable',
  planned_not_live: 'planned, not live',
  geo_division_uncatalogued: 'place not recognised',
  unseeded_place: 'no data for this city',
  geocode_failed: 'address not matched',
  // A value status reads as every surface words it (src/core/value-words.ts).
  ...VALUE_STATUS_WORDS,
};

/** A place's coverage as the coverage page states it: its label, and why (the catalogue's reason, else the status's meaning). */
export function placeStatusWords(status: Status, statusReason: string | null | undefined): { label: string; why: string } {
  return { label: STATUS_LABELS[status], why: statusReason ?? STATUS_MEANINGS[status].meaning };
}
