"""Mining: what counts as knowledge in what Claude Code wrote, one module per source (pure).

The kinds (``notes.schema.Kind``) and the cues and vetoes that decide each are one table,
``kinds``; ``cues`` classifies one sentence with it and ``text`` reads a message into units
(code and quotes masked, sentences, lists under a heading). One module per source:
``answers`` (Claude's messages and commit messages; ``reports``: a report's problem and fix
sections), ``structured`` (what Claude Code writes
with a schema: questions answered, approved plans, todo lists, tracker listings),
``summaries`` (Claude Code's compact summaries), ``toolresults`` (a tool's output: its failure),
``fixes`` (a failure a later change plausibly fixed; ``mentions``: what a path or text names;
``diagnostics``: a compiler's error on code in progress; ``tools``: the tool a failure ran, the
entity its gotcha goes to), ``prompts`` (a rule the person sets), ``states`` (a state a final
answer says was chosen), ``settled`` (a next step a later line completed) and ``notices``
(Claude Code's API notices, no prose). ``factrule`` is what an entity line must be to be kept (a fact). Capture
(``vaultmem.claude``), the briefing (``vaultmem.brief``) and compaction (``vaultmem.memory``)
import from here. May import `vaultmem.notes` and the shared base; never the layers above.
"""
