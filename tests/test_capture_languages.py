"""Sessions in German, French and Spanish through the real capture path (issue 28: capture on
real sessions of any user): a greeting or a request to carry on names no session, labelled parts
and headed lists give their kind, a rule the person sets is kept, a recap's NEXT part is the
next steps, and a prompt of thanks names no task. Hand-written transcripts, in-process hooks,
a temporary vault; the English rules are the control."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from transcript_kit import Transcript, end, note, section, stop

from vaultmem.claude import onprompt


@dataclass(frozen=True)
class Said:
    """One language's session: what the person typed and what Claude answered."""

    code: str
    greeting: str
    carry_on: str
    task: str
    answer: str  # a labelled decision, a lead-in naming the next steps and their list
    decision: str
    steps: tuple[str, str]
    rule: str
    thanks: str


SESSIONS = (
    Said("de", "Hallo Claude!", "Mach bitte weiter, wo wir aufgehört haben",
         "Der Rechnungsexport bricht bei großen Kunden mit einem Timeout ab",
         "Ich habe den Export auf einen Cursor umgestellt.\n\n"
         "**Entscheidung:** Beträge werden als Ganzzahl in Cent gespeichert.\n\n"
         "Nächste Schritte:\n- Den Export im Staging mit echten Daten testen\n"
         "- Das Timeout im Load Balancer auf 120 s erhöhen",
         "Beträge werden als Ganzzahl in Cent gespeichert",
         ("Den Export im Staging mit echten Daten testen",
          "Das Timeout im Load Balancer auf 120 s erhöhen"),
         "Ab jetzt bitte immer pnpm statt npm verwenden.", "Danke, passt!"),
    Said("fr", "Bonjour !", "On reprend là où on s'était arrêtés",
         "L'export des factures échoue avec un timeout pour les gros clients",
         "J'ai remplacé la pagination par un curseur.\n\n"
         "**Décision :** les montants sont stockés en centimes entiers.\n\n"
         "## Prochaines étapes\n- Tester l'export en préproduction avec de vraies données\n"
         "- Augmenter le timeout du répartiteur de charge à 120 s",
         "Les montants sont stockés en centimes entiers",
         ("Tester l'export en préproduction avec de vraies données",
          "Augmenter le timeout du répartiteur de charge à 120 s"),
         "Désormais, lance toujours ruff avant de pousser.", "Merci beaucoup !"),
    Said("es", "Hola, buenos días", "¿Dónde nos quedamos? Continúa por favor",
         "La exportación de facturas falla con un timeout para clientes grandes",
         "He cambiado la paginación por un cursor.\n\n"
         "**Decisión:** los importes se guardan como enteros en céntimos.\n\n"
         "**Próximos pasos:**\n- Probar la exportación en staging con datos reales\n"
         "- Subir el timeout del balanceador a 120 s",
         "Los importes se guardan como enteros en céntimos",
         ("Probar la exportación en staging con datos reales",
          "Subir el timeout del balanceador a 120 s"),
         "A partir de ahora, nunca hagas push a main sin pasar los tests.", "¡Gracias, perfecto!"),
)
IDS = [said.code for said in SESSIONS]


def _session(log: Transcript, said: Said) -> None:
    log.prompt(said.greeting)
    log.say("👋")
    stop(log)
    log.prompt(said.carry_on)
    log.say("…")
    stop(log)
    log.prompt(said.task)
    log.say(said.answer)
    stop(log)
    log.prompt(said.rule)
    log.say("OK.")
    stop(log)
    end(log)


@pytest.mark.parametrize("said", SESSIONS, ids=IDS)
def test_a_session_in_another_language_is_read(env: Path, log: Transcript, said: Said) -> None:
    _session(log, said)
    text = note(env)
    # The session is named by its task, not the greeting, not the request to carry on.
    assert f"\n# {said.task[:40]}" in text
    decisions = section(text, "Decisions Made")
    assert any(said.decision in line for line in decisions), decisions
    assert any(said.rule in line for line in decisions), decisions
    steps = section(text, "Next Steps")
    assert [step.removeprefix("- ") for step in steps] == list(said.steps), steps


@pytest.mark.parametrize("said", SESSIONS, ids=IDS)
def test_thanks_names_no_task(said: Said) -> None:
    assert onprompt.terms(said.thanks) == []
    assert onprompt.terms(said.task) != []


RECAPS = {
    "plain": "SUMMARY: Fixed the export timeout\n\nRESULTS: exports run in batches of 500\n\n"
             "NEXT: Run the migration on staging",
    "emoji": "📋 SUMMARY: Fixed the export timeout\n\n✅ RESULTS: exports run in batches\n\n"
             "➡️ NEXT: Run the migration on staging",
    "bold headed": "**SUMMARY:** Fixed the export timeout\n\n**ACTIONS:**\n- Rewrote the "
                   "export query\n\n**STATUS:** all tests pass\n\n➡️ **NEXT:**\n"
                   "- Run the migration on staging\n\n🎯 **COMPLETED:** Export timeout fixed",
    "headings": "## 📋 Summary\nFixed the export timeout.\n\n## ➡️ Next\n"
                "- Run the migration on staging\n\n## ✅ Completed\nExport timeout fixed.",
}


@pytest.mark.parametrize("recap", RECAPS.values(), ids=RECAPS.keys())
def test_a_recaps_next_part_is_the_next_step(env: Path, log: Transcript, recap: str) -> None:
    log.prompt("the invoice export times out for big customers")
    log.say(recap)
    stop(log)
    end(log)
    assert section(note(env), "Next Steps") == ["- Run the migration on staging"]


def test_english_control(env: Path, log: Transcript) -> None:
    log.prompt("hello there")
    log.say("Hi!")
    stop(log)
    log.prompt("the invoice export times out for big customers")
    log.say("Switched the export to a cursor.\n\nNext steps:\n- Test the export on staging")
    stop(log)
    end(log)
    text = note(env)
    assert "\n# the invoice export times out for big customers\n" in text
    assert section(text, "Next Steps") == ["- Test the export on staging"]


# Unlabelled sentences: each table's cues (a cause found, a choice made with its alternative, a
# step left), and its vetoes (narration, a hedge) keep what is no knowledge out.
PROSE = {
    "de": ("Die Ursache war, dass der Export alle Rechnungen auf einmal in den Speicher lädt. "
           "Ich habe mich für einen Cursor entschieden, statt die Abfrage zu paginieren. "
           "Als nächstes muss noch die Migration auf Staging laufen. "
           "Lass mich die Logs prüfen, ob der Fehler weiterhin auftritt. "
           "Vielleicht liegt es daran, dass der Cache veraltet ist."),
    "fr": ("La cause était que le cache n'était jamais vidé après un déploiement. "
           "J'ai choisi SQLite plutôt que Postgres pour garder le déploiement simple. "
           "Il reste à écrire les tests de migration pour la table des factures. "
           "Je vais vérifier les logs du serveur pour voir si ça recommence. "
           "Le problème vient peut-être du cache du navigateur."),
    "es": ("El problema era que la caché no se invalidaba después del despliegue. "
           "Hemos optado por usar un cursor en lugar de paginar la consulta. "
           "Todavía falta escribir los tests de integración para los pagos. "
           "Voy a revisar los logs del servidor para ver si se repite. "
           "Quizás el problema sea la caché del navegador."),
}


@pytest.mark.parametrize("code", PROSE, ids=list(PROSE))
def test_unlabelled_sentences_by_each_languages_cues(env: Path, log: Transcript,
                                                     code: str) -> None:
    said = PROSE[code].split(". ")
    log.prompt("the invoice export times out for big customers")
    log.say(PROSE[code])
    stop(log)
    end(log)
    text = note(env)
    assert [g.removeprefix("- ") for g in section(text, "Gotchas & Fixes")] == [said[0] + "."]
    assert [d.removeprefix("- ") for d in section(text, "Decisions Made")] == [said[1] + "."]
    assert [s.removeprefix("- ") for s in section(text, "Next Steps")] == [said[2] + "."]


def test_english_prose_is_not_read_by_the_other_tables(env: Path, log: Transcript) -> None:
    # "lag" and "statt" in English words; a hedge the English rules read.
    log.prompt("the invoice export times out for big customers")
    log.say("The replication lag statistics look fine for the export database. "
            "Maybe the cache is stale.")
    stop(log)
    end(log)
    text = note(env)
    for title in ("Gotchas & Fixes", "Decisions Made", "Next Steps"):
        assert section(text, title) == []


def test_a_recaps_line_is_what_it_says_was_done(env: Path, log: Transcript) -> None:
    log.prompt("the invoice export times out for big customers")
    log.say("📋 **SUMMARY:** Fixed the export timeout\n\n🔍 **ANALYSIS:**\n- The query loaded "
            "every invoice at once\n- Memory peaked at 3 GB\n\n⚡ **ACTIONS:**\n- Rewrote the "
            "export query\n\n📊 **STATUS:** all tests pass\n\n➡️ **NEXT:**\n- Run the migration "
            "on staging\n\n🎯 **COMPLETED:** Export streams invoices in batches of 500")
    stop(log)
    end(log)
    text = note(env)
    assert ("**Answer:** Fixed the export timeout — Export streams invoices in batches of 500"
            in text)
    assert "> - Memory peaked at 3 GB" in text  # the recap is kept whole below its line
    assert section(text, "Next Steps") == ["- Run the migration on staging"]
