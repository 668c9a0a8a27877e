// The project page's map as an editor: a click on a neighbouring lot selects it (outlined on the map),
// fills the attach form's lot id and offers its two buttons; a click on an attached lot points at its
// row and detach button. The forms post without this script too (lot id or address, with the radius).
// Runs after site-map.js (module scripts run in document order), which leaves the maps on window.sitelineMaps.

function editorOf(map) {
  const el = map.getContainer();
  if (!el.dataset.projectEditor) return;
  const said = document.getElementById('map-selection');
  const input = document.getElementById('attach-parcel');
  const address = document.getElementById('attach-address');
  const layers = ['lots-fill', 'neighbours-fill'];
  const select = (id) => {
    const filter = ['==', ['get', 'lot'], id];
    map.setFilter('selected-fill', filter);
    map.setFilter('selected-line', filter);
  };
  map.on('click', (e) => {
    const hit = map.queryRenderedFeatures(e.point, { layers })[0];
    if (!hit) return;
    const id = String(hit.properties.lot);
    for (const row of document.querySelectorAll('#project-lots tr.selected')) row.classList.remove('selected');
    if (hit.layer.id === 'lots-fill') {
      select('');
      const row = document.querySelector(`#project-lots tr[data-lot="${CSS.escape(id)}"]`);
      row?.classList.add('selected');
      said.textContent = `Lot ${id} is attached as the ${hit.properties.role === 'context' ? 'context' : 'build'} lot; its Detach button is in the table of lots.`;
      el.dataset.selected = id;
      return;
    }
    select(id);
    input.value = id;
    address.value = '';
    said.textContent = `Selected lot ${id}: attach it as a build lot or as a context lot with the buttons below.`;
    el.dataset.selected = id;
  });
  map.on('mousemove', (e) => {
    map.getCanvas().style.cursor = map.queryRenderedFeatures(e.point, { layers }).length ? 'pointer' : '';
  });
}

for (const map of window.sitelineMaps ?? []) editorOf(map);
