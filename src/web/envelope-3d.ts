// The 3D envelope on the snapshot page and on a project page (one view per build lot): the lot outline
// on the ground and the buildable footprint raised to the maximum height, drawn by the site's map
// script (MapLibre fill-extrusion over siteline's own tiles; no basemap), beside a legend that states
// each value used with its status. When a value is unknown, or only indicative, the view says which in
// one sentence and draws nothing. The text is the page's: without JavaScript or WebGL it all stays.
// Thin adapter over src/analysis/envelope-3d.ts.
import type { AppContext } from '../context.ts';
import type { Snapshot, Sourced } from '../core/snapshot-types.ts';
import type { BBox } from '../core/geo/primitives.ts';
import { bboxOf } from '../core/geo/primitives.ts';
import type { ProjectLot } from '../projects/project-lots.ts';
import { envelope3dOfProjectLot, envelope3dOfSnapshot, type Envelope3dOfLot } from '../analysis/envelope-3d-inputs.ts';
import type { Envelope3dBasis, Envelope3dUnknown } from '../analysis/envelope-3d.ts';
import { envelopeStyle } from '../maps/envelope-style.ts';
import { statusBadge } from './status-badge.ts';
import { html, type Html } from '../http/html.ts';
import type { FeasibilityAnalysis } from '../analysis/analysis-result.ts';

/** The camera of the 3D view. */
export const ENVELOPE_3D_PITCH = 50;
const BEARING = -20;
/** Padding about the lot, in degrees (about 10 m), so the neighbouring lots frame it. */
const PAD_DEG = 0.0001;

const LEGEND_LABELS: Record<string, string> = {
  maxHeightFt: 'Maximum height',
  maxHeightStoreys: 'Maximum storeys',
  minFrontYardFt: 'Front setback',
  minSideYardFt: 'Side setback',
  minSideYardSumFt: 'Sum of the side setbacks',
  minRearYardFt: 'Rear setback',
};

const num = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

function basisRow(b: Envelope3dBasis): Html {
  return html`<dt>${LEGEND_LABELS[b.member] ?? b.label}</dt><dd data-member="${b.member}">${b.usedAs} ${statusBadge(b.status)}${b.condition ? html` <span class="muted">(${b.condition})</span>` : ''}</dd>`;
}

function unknownRow(u: Envelope3dUnknown): Html {
  return html`<dt>${LEGEND_LABELS[u.member] ?? u.label}</dt><dd data-member="${u.member}">${u.says} ${statusBadge(u.status)} <span class="muted">not drawn</span></dd>`;
}

/** One lot's view: the drawing and its legend, or the statement of what is missing. */
function lotView(v: Envelope3dOfLot, idSuffix: string, units: 'imperial' | 'metric'): Html {
  const id = `envelope-3d-map${idSuffix}`;
  const s = v.solid;
  if (!s.drawn) {
    return html`<div class="envelope-3d" data-lot="${v.lot.parcelExternalId}">
<p class="envelope-3d-statement" role="note"><strong>${s.statement}</strong></p>
<dl class="facts envelope-3d-legend">${s.basis.map(basisRow)}${s.unknown.map(unknownRow)}</dl>
</div>`;
  }
  const b = bboxOf(v.lot.polygon);
  const bounds: BBox = [b[0] - PAD_DEG, b[1] - PAD_DEG, b[2] + PAD_DEG, b[3] + PAD_DEG];
  const lots = {
    type: 'FeatureCollection' as const,
    features: [
      {
        type: 'Feature' as const,
        properties: { lot: v.lot.parcelExternalId, role: 'lot' },
        geometry: { type: 'MultiPolygon' as const, coordinates: v.lot.polygon },
      },
    ],
  };
  // A height limited in storeys only (no height in feet known): the footprint lies on the ground.
  const view = JSON.stringify({
    style: envelopeStyle({ lots, footprint: s.footprint, heightM: s.heightM ?? 0 }),
    bounds,
    units,
    pitch: ENVELOPE_3D_PITCH,
    bearing: BEARING,
    maxZoom: 19,
  });
  // What the drawing shows, in one attribute the page script's map draws from and a reader (or a test) can read back.
  const solid = JSON.stringify({
    lot: v.lot.parcelExternalId,
    heightFt: s.heightFt,
    heightM: s.heightM,
    ...(s.heightStoreys !== undefined ? { heightStoreys: s.heightStoreys } : {}),
    areaSqft: s.areaSqft,
    footprint: s.footprint,
  });
  const footprint = `the buildable footprint (${num(s.areaSqft)} sq ft, the lot less its setbacks)`;
  const label =
    s.heightFt === null
      ? `3D view of lot ${v.lot.parcelExternalId}: its outline and ${footprint} on the ground, not raised: the height is limited to ${num(s.heightStoreys ?? 0)} storeys, and no height in feet is known.`
      : `3D view of lot ${v.lot.parcelExternalId}: its outline on the ground and ${footprint} raised to the maximum height of ${num(s.heightFt)} ft.`;
  return html`<div class="envelope-3d" data-lot="${v.lot.parcelExternalId}" data-envelope-3d="${solid}">
<div class="map" id="${id}" role="region" aria-label="${label}" data-map-view="${view}"></div>
<noscript><p class="muted">The 3D view needs JavaScript and WebGL; what it draws is stated below.</p></noscript>
<p class="envelope-3d-statement">${label}</p>
<dl class="facts envelope-3d-legend">${s.basis.map(basisRow)}<dt>Buildable footprint</dt><dd>${num(s.areaSqft)} sq ft</dd></dl>
<p class="muted">${s.placement} Drawn: the space the setbacks and the height leave, not a building; lot coverage, floor area and storeys limits are not drawn.</p>
</div>`;
}

function section(body: Html): Html {
  return html`<section id="envelope-3d" aria-labelledby="envelope-3d-h"><h2 id="envelope-3d-h">Envelope in 3D</h2>
<p class="muted">The lot less its front, side and rear setbacks, raised to the maximum height, drawn only from values read from the bylaw; an unknown or indicative value is named and nothing is drawn.</p>
${body}</section>`;
}

/** The snapshot page's 3D section (empty when the snapshot has no lot). */
export async function snapshotEnvelope3d(ctx: AppContext, s: Snapshot): Promise<Html> {
  if (!s.lot) return html``;
  const v = await envelope3dOfSnapshot(ctx.db, s);
  if (!v)
    return section(
      html`<p class="envelope-3d-statement" role="note"><strong>No 3D envelope: the lot's outline is not in the data loaded on this server.</strong></p>`,
    );
  return section(lotView(v, '', s.coverage.place?.country === 'CA' ? 'metric' : 'imperial'));
}

/** A project page's 3D section: one view per build lot, from the latest finished analysis's standards. */
export function projectEnvelope3d(lots: ProjectLot[], analysis: FeasibilityAnalysis | null): Html {
  const build = lots.filter((l) => l.role === 'build');
  if (!build.length) return html``;
  const standards: Record<string, Sourced | undefined> | undefined = analysis?.standards;
  if (!standards)
    return section(
      html`<p class="envelope-3d-statement" role="note"><strong>No 3D envelope yet: it is drawn from a finished analysis; run the analysis.</strong></p>`,
    );
  return section(
    html`${build.map((l, i) => {
      const v = envelope3dOfProjectLot(l.lot, standards);
      return html`<h3>Lot ${l.lot.parcelExternalId}</h3>${lotView(v, `-${i + 1}`, 'imperial')}`;
    })}`,
  );
}
