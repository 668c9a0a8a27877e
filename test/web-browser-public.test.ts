// @engine-independent: the pages' behaviour in Chromium; their data paths run on PostgreSQL in web-*.test.ts.
// The signed-out pages in headless Chromium at desktop and phone widths (the suite is in
// test/support/web-browser-suite.ts).
import { browserSuite } from './support/web-browser-suite.ts';

browserSuite([1280, 390], 'public');
