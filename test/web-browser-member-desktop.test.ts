// @engine-independent: the pages' behaviour in Chromium; their data paths run on PostgreSQL in web-*.test.ts.
// The signed-in pages and the map in headless Chromium at a desktop width (the suite is in test/support/web-browser-suite.ts).
import { browserSuite } from './support/web-browser-suite.ts';

browserSuite([1280], 'member');
