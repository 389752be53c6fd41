"""Mining: what counts as knowledge in what Claude Code wrote, one module per source (pure).

``answers`` reads Claude's messages (and commit messages) for decisions, gotchas,
prerequisites, next steps and questions; ``cues`` holds the cue phrases and vetoes that decide
a sentence's kind; ``text`` reads a message into units (code and quotes masked, sentences,
lists under a heading); ``toolresults`` reads a tool's output for its failure, ``diagnostics`` whether a compiler's
error was only code in progress; ``structured`` reads what Claude Code writes with a schema
(questions answered, approved plans, todo lists, tracker listings); ``summaries`` reads
Claude Code's compact summaries for what they state; ``prompts``
reads the person's prompt for a rule they set ("never commit without signing"); ``factrule``
is what an entity line must be to be kept (a fact). Capture
(``vaultmem.claude``) and compaction (``vaultmem.memory``) import from here. May import
`vaultmem.notes` and the shared base; never the layers above.
"""
