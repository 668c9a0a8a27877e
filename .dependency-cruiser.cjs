// The layer rules of the house (docs/architecture.md, "Rooms and layers"), checked by dependency-cruiser in
// `npm test` (test/layers.test.ts) and by `npm run layers`. There is no exceptions list: a wrong import
// fails with the rule's name and the two files.
//
//   foundation  src/{config,clock,logger,trusted-proxies}.ts, src/db/, src/http/   knows only core/
//   core        src/core/          statuses, envelope, geometry, errors, types   imports nothing above it
//   domain      src/{auth,places,geocoder,importer,rules,snapshot,lots,analysis,projects,billing,feedback,
//               mail,maps,reports,staff,ops}/                                   knows no surface
//   plumbing    src/http/           the hono app type, error formats, the node server, page shell,
//                                    client address: what every surface uses; imports no surface
//   surfaces    src/{oauth,rest,mcp,web,cli,probes}/   thin adapters; none imports another
//   root        src/app.ts          mounts every surface: the only importer of a src/<surface>/routes.ts
const SURFACES = '^src/(oauth|rest|mcp|web|cli|probes)/';
const DOMAIN = '^src/(auth|places|geocoder|importer|rules|snapshot|lots|analysis|projects|billing|feedback|mail|maps|reports|staff|ops)/';
const FOUNDATION = '^src/((config|clock|logger|trusted-proxies)\\.ts$|db/|http/)';
const TEST = '\\.test\\.ts$';

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
      comment: 'Configuration, clock, logger, the database layer and the HTTP plumbing sit under every room: they import only each other and src/core/.',
      severity: 'error',
      from: { path: FOUNDATION, pathNot: TEST },
      to: { path: '^src/', pathNot: `^src/core/|${FOUNDATION}` },
    },
    {
      name: 'domain-knows-no-surface',
      comment: 'A domain room knows no HTTP, MCP, web page or CLI: every surface adapts the same domain call (move the code to the surface, or pass what it needs in).',
      severity: 'error',
      from: { path: DOMAIN, pathNot: TEST },
      to: { path: SURFACES },
    },
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
      from: { path: '^src/(oauth|rest|mcp|web|cli|probes)/', pathNot: TEST },
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
