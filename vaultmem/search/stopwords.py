"""The words a search box query may hold that say nothing of what is searched for (pure).

People type questions as well as keywords: "where are the tests", "how do we restart the
panel". Every word of a query must match (recall ANDs them), so "where", "are" and "the"
would have to occur in the very line that answers, which a note saying "Tests live in
``Projects/Tests``" does not. Such words are dropped from a query that holds other words; a
query of nothing else ("what is it") is searched as typed. Negations ("not", "no", "never")
and words that name something ("error", "fix") are kept: they change what an answer is.
"""

from __future__ import annotations

from collections.abc import Sequence

# Function words of questions and requests, casefolded, by language: a person may type the
# same question in German, French or Spanish. Words that are also commands or content in
# English ("find", "show", "get", "may", "die") are not among them.
BY_LANGUAGE: dict[str, str] = {
    "en": "a an the is are was were be been being am do does did done have has had having "
          "i me my we us our you your it its this that these those there here "
          "of in on at by for from to into onto with about as than then so and or but if "
          "what where when why how which who whom whose "
          "can could should would will shall might must please tell",
    "de": "der das den dem des ein eine einen einem einer ist sind war waren wie wo was wann "
          "warum welche welcher welches wer und oder mit von zu im am auf für ich wir du es",
    "fr": "le la les un une des du de et ou est sont où quand comment pourquoi quel quelle "
          "quels quelles qui que je nous vous il elle dans sur pour avec",
    "es": "el los las una unos unas y o es son dónde donde cuándo cuando cómo como por qué "
          "que cuál cual quién quien yo nosotros en con para",
}
STOPWORDS = frozenset(" ".join(BY_LANGUAGE.values()).split())


def searched(words: Sequence[str]) -> list[int]:
    """The positions of ``words`` a search looks for: all but the stop words, or all of them
    when nothing else is left."""
    kept = [n for n, word in enumerate(words) if word.casefold() not in STOPWORDS]
    return kept or list(range(len(words)))
