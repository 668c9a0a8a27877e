// The layer rules of the house (docs/architecture.md, "Rooms and layers"), checked by dependency-cruiser in
// `npm test` (test/layers.test.ts) and by `npm run layers`. There is no exceptions list: a wrong import
// fails with the rule's name and the two files.
//
// The house's order, lowest row first. A room is a folder under src/ or a file directly in src/. A room
// imports only rooms of the rows below its own and, in its own row, the rooms listed before it: no import
// climbs, and no two rooms import each other (no room loops). The surfaces' row has its own rules (below):
// a surface imports no other surface, src/http/ (the plumbing every surface uses: the hono app type, error
// formats, the node server, the page shell, the client address) sits in the foundation and imports no
// surface, and the composition root src/app.ts is the only importer of a src/<surface>/routes.ts.
const ORDER = [
  // statuses, the envelope, geometry, errors, the snapshot's types: imports nothing above it
  ['core', ['core']],
  // configuration, time, logs, SQL, metrics and request limits, mail, the caches and the context, the HTTP plumbing
  ['foundation', ['trusted-proxies.ts', 'clock.ts', 'logger.ts', 'config.ts', 'db', 'ops', 'mail', 'caches.ts', 'context.ts', 'http']],
  // what a place is and holds: the catalogue and the manifest, the rules files, the lots, the geocoder
  ['sources', ['places', 'rules', 'lots', 'geocoder']],
  // the address -> answer pipeline, and the importer that loads and audits a place through it
  ['answers', ['snapshot', 'importer']],
  // accounts and their work
  ['work', ['billing', 'auth', 'feedback', 'maps', 'projects', 'analysis']],
  // what reads everything below: the PDF report and the project's context, staff actions
  ['back', ['reports', 'staff']],
  // thin adapters over domain calls; none imports another
  ['surfaces', ['oauth', 'rest', 'mcp', 'web', 'cli', 'probes']],
  // the process: main -> service-process -> service -> app (the composition root, mounting every surface)
  ['root', ['app.ts', 'service.ts', 'service-process.ts', 'main.ts']],
];
const roomPath = (room) => (room.endsWith('.ts') ? `^src/${room.replace(/\./g, '\\.')}$` : `^src/${room}/`);
const anyOf = (rooms) => rooms.map(roomPath).join('|');
const rowOf = (name) => ORDER.find(([row]) => row === name)[1];

const SURFACES = anyOf(rowOf('surfaces'));
const DOMAIN = anyOf([...rowOf('sources'), ...rowOf('answers'), ...rowOf('work'), ...rowOf('back')]);
const FOUNDATION = anyOf(rowOf('foundation'));
const TEST = '\\.test\\.ts$';

/**
 * One rule per row, `<row>-rooms-import-nothing-above`: a room of the row imports no room of a higher row.
 * core and the foundation keep their own rules below; a domain room importing a surface is
 * domain-knows-no-surface.
 */
const climbs = ORDER.flatMap(([row, rooms], i) => {
  if (row === 'core' || row === 'foundation' || row === 'root') return [];
  const above = ORDER.slice(i + 1)
    .filter(([r]) => row === 'surfaces' || r !== 'surfaces')
    .flatMap(([, rs]) => rs);
  return [
    {
      name: `${row}-rooms-import-nothing-above`,
      comment: `A room of ${row} (${rooms.join(', ')}) imports only rooms of the rows below it (${ORDER.slice(0, i)
        .map(([r]) => r)
        .join(', ')}): move what is shared down, or pass what is needed in.`,
      severity: 'error',
      from: { path: anyOf(rooms), pathNot: TEST },
      to: { path: anyOf(above) },
    },
  ];
});

/**
 * One rule per row, `<row>-rooms-in-order` (a generated rule for each room): inside a row, a room imports only
 * the rooms listed before it, so two rooms of one row never import each other. Not the surfaces' row:
 * a surface imports no other surface at all.
 */
const inRow = ORDER.flatMap(([row, rooms]) =>
  row === 'surfaces'
    ? []
    : rooms.slice(0, -1).map((room, j) => ({
        name: `${row}-rooms-in-order`,
        comment: `In ${row} the order is ${rooms.join(' < ')}: ${room} imports none of ${rooms.slice(j + 1).join(', ')}.`,
        severity: 'error',
        from: { path: roomPath(room), pathNot: TEST },
        to: { path: anyOf(rooms.slice(j + 1)) },
      })),
);

module.exports = {
  forbidden: [
    {
      name: 'core-imports-nothing-above-it',
      comment: 'src/core/ holds statuses, the envelope, geometry, errors and types; it may import only src/core/ and packages.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'foundation-knows-no-room',
      comment:
        'Configuration, clock, logger, the database, metrics and limits, mail, the caches and the context, the HTTP plumbing sit under every room: they import only each other and src/core/.',
      severity: 'error',
      from: { path: FOUNDATION, pathNot: TEST },
      to: { path: '^src/', pathNot: `^src/core/|${FOUNDATION}` },
    },
    {
      name: 'domain-knows-no-surface',
      comment:
        'A domain room knows no HTTP, MCP, web page or CLI: every surface adapts the same domain call (move the code to the surface, or pass what it needs in).',
      severity: 'error',
      from: { path: DOMAIN, pathNot: TEST },
      to: { path: SURFACES },
    },
    ...climbs,
    ...inRow,
    {
      name: 'surfaces-are-mounted-in-one-place',
      comment: 'Every surface exposes its routes in src/<surface>/routes.ts; only the composition root src/app.ts imports one.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/app\\.ts$|${TEST}` },
      to: { path: '^src/[^/]+/routes\\.ts$' },
    },
    {
      name: 'http-plumbing-imports-no-surface',
      comment: 'src/http/ is the plumbing every surface uses (app type, error formats, server, page shell): it imports no surface and not the root.',
      severity: 'error',
      from: { path: '^src/http/', pathNot: TEST },
      to: { path: `${SURFACES}|^src/app\\.ts$` },
    },
    {
      name: 'surfaces-import-no-other-surface',
      comment: 'A surface is a thin adapter: what it needs of another surface is plumbing (src/http/) or a domain call.',
      severity: 'error',
      from: { path: `^src/(${rowOf('surfaces').join('|')})/`, pathNot: TEST },
      to: { path: SURFACES, pathNot: '^src/$1/' },
    },
    {
      name: 'no-circular',
      comment: 'Import circles make the load order matter and the rooms inseparable: move the shared part to a module both import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // swc parses the TypeScript sources (dependency-cruiser's tsc reader needs TypeScript < 7; this repo
    // builds with TypeScript 7). Type-only imports count: a type is a dependency of the reader.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    moduleSystems: ['es6'],
  },
};
