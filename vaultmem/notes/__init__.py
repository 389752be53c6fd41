"""The notes core: pure text in, text out (no disk, no clock, no network).

Owns how a note's text is read and edited: frontmatter (read in `frontmatter`, edited key by key
in `propedit`), sections and their line ranges, section and key patches, wikilinks, names, inline
text, templates, the private spans and secrets taken out of captured text, and the facts (list
items) of a note. Byte-faithful by contract: edits slice the
original lines, never re-render. May import only `vaultmem.errors` and modules of this package
(the one exception to "no disk": `secretrules` keeps detect-secrets' rules in a user cache file).
"""
