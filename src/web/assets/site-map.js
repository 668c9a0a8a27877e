// Draws every [data-map-view] element as a MapLibre map. The element carries its whole style (our own
// tiles, the highlighted lots) and the box to frame as JSON; tile URLs are made absolute against this
// page's origin. Served by siteline itself (no CDN); the page reads fine without it.
import { Map as MapLibreMap, NavigationControl, ScaleControl } from '/assets/maplibre-gl/maplibre-gl.mjs';

/**
 * A weak match's map (issue 49, item 6): a click on one of the grey lots around fills the doubt box's
 * lot id and asks the page again for that lot; the form works without this, by typing the id.
 */
function pickOnClick(map, form) {
  if (!form) return;
  const layers = ['pickable-fill'];
  map.on('click', (e) => {
    const hit = map.queryRenderedFeatures(e.point, { layers })[0];
    if (!hit) return;
    form.elements.namedItem('lot').value = String(hit.properties.lot);
    form.requestSubmit();
  });
  map.on('mousemove', (e) => {
    map.getCanvas().style.cursor = map.queryRenderedFeatures(e.point, { layers }).length ? 'pointer' : '';
  });
}

const maps = [];
for (const el of document.querySelectorAll('[data-map-view]')) {
  const view = JSON.parse(el.dataset.mapView);
  for (const source of Object.values(view.style.sources)) {
    if (Array.isArray(source.tiles)) source.tiles = source.tiles.map((t) => (t.startsWith('/') ? location.origin + t : t));
  }
  el.dataset.state = 'loading';
  let map;
  try {
    map = new MapLibreMap({
      container: el,
      style: view.style,
      bounds: view.bounds,
      fitBoundsOptions: { padding: 40, maxZoom: view.maxZoom ?? 18, ...(view.bearing ? { bearing: view.bearing } : {}) },
      maxZoom: 20,
      // A 3D view (the envelope) comes tilted; every other map is flat.
      pitch: view.pitch ?? 0,
      bearing: view.bearing ?? 0,
      attributionControl: { compact: true },
      canvasContextAttributes: { preserveDrawingBuffer: true },
    });
  } catch {
    // No WebGL (or MapLibre refused): the page's words stand; say so where the map would be.
    el.dataset.state = 'unavailable';
    el.textContent = 'The map cannot be drawn in this browser (it needs WebGL); everything it shows is written on this page.';
    continue;
  }
  map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
  map.addControl(new ScaleControl({ unit: view.units === 'metric' ? 'metric' : 'imperial' }), 'bottom-left');
  map.getCanvas().setAttribute('aria-label', el.getAttribute('aria-label') ?? 'Map');
  map.once('idle', () => {
    el.dataset.state = 'ready';
  });
  if (el.dataset.lotPick) pickOnClick(map, document.getElementById(el.dataset.lotPick));
  maps.push(map);
}
// For the browser tests and for anyone inspecting the page from the console.
window.sitelineMaps = maps;
