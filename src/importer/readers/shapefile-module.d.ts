// Types for the `shapefile` package (it ships none): only what the reader uses.
declare module 'shapefile' {
  export interface ShapefileSource {
    read(): Promise<{
      done: boolean;
      value: { type: 'Feature'; properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } | null };
    }>;
    cancel(): Promise<void>;
  }
  export function open(
    shp: string | ArrayBuffer | Uint8Array,
    dbf?: string | ArrayBuffer | Uint8Array,
    options?: { encoding?: string },
  ): Promise<ShapefileSource>;
}
