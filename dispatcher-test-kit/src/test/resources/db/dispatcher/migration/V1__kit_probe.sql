-- Only for the kit's own tests: proves createSchema migrates into the new schema without placeholder replacement.
CREATE TABLE kit_probe (note text DEFAULT '${not_a_placeholder}');
