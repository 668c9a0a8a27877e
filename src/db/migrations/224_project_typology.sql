-- A project's typology as its owner states it (issue 49): what is planned on the site. NULL until
-- set; the public map then keeps its derived typology (docs/web.md, "Typology"). Set and cleared
-- by updateProject, so each change has a receipt and can be undone.
ALTER TABLE projects ADD COLUMN IF NOT EXISTS typology text;
