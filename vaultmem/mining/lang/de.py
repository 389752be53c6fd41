"""German: the phrases of each rule family (see :mod:`vaultmem.mining.lang`)."""

from __future__ import annotations

from vaultmem.notes.schema import Kind

from .table import Language, wordset

LANGUAGE = Language(
    code="de",
    marks=wordset(
        "der die das und ist nicht ich wir ein eine einen einem dem den des mit auf für von zu zum "
        "zur im ist sind wurde werden wird hat habe haben kann muss sich sie bei aus nach oder "
        "aber wenn weil dass noch jetzt schon auch als wie nur mehr keine kein beim ins diese "
        "dieser dieses durch gibt war waren"
    ),
    greetings=(r"hallo", r"hall[öo]chen", r"guten (?:morgen|tag|abend)", r"moin(?: moin)?",
               r"servus", r"grü(?:ß|ss) (?:gott|dich|euch)", r"tach", r"na", r"huhu"),
    fillers=(r"ok(?:ay)?", r"also", r"bitte", r"ja", r"gut", r"dann", r"jetzt", r"nun", r"so",
             r"lass(?:t)? uns", r"kannst du", r"könntest du", r"wir", r"einfach"),
    carry_on=((r"(?:mach(?:e|en)?|fahr(?:e)?) (?:(?:bitte|einfach|doch|mal|jetzt|dann) )*"
              r"(?:weiter|fort)"), r"weiter(?:machen)?",
              r"fortfahren", r"fortsetzen", r"weiterarbeiten",
              r"setz(?:e|en)? (?:\w+ ){0,3}fort",
              r"wo (?:waren|sind|standen) wir(?: stehen geblieben)?",
              (r"(?:die |der |unsere )?(?:letzte|vorherige)n? (?:sitzung|session|arbeit)"
              r"(?: fortsetzen| weiterführen| wieder aufnehmen)?")),
    carry_on_tail=(r"wo wir (?:aufgehört|stehen geblieben) (?:haben|sind|waren)",
                   (r"(?:mit|von|an) (?:der |dem )?(?:letzten|vorherigen) (?:sitzung|session|"
                   r"arbeit|stand)"), r"mit der arbeit", r"bitte"),
    no_task=wordset(
        "danke dankeschön vielen bitte passt genau super prima klasse toll weiter mach machen "
        "okay gerne alles klar stimmt richtig perfekt jawohl nein doch und der das ist nicht "
        "ich wir ein eine einen dem den des mit auf für von zum zur sind wird hat habe haben "
        "kann muss sich sie bei aus nach oder aber wenn weil dass noch jetzt schon auch wie "
        "nur mal bitte schön sehr gut"
    ),
    rules=(r"nie(?:mals)?", r"immer", r"ab (?:jetzt|sofort|heute)", r"von (?:nun|jetzt) an",
           r"künftig", r"zukünftig", r"in zukunft", r"grundsätzlich",
           r"vermeide", r"verwende (?:\S+ ){1,4}(?:statt|anstatt|anstelle von|nicht)",
           r"(?:benutze|verwende|nutze) (?:nie(?:mals)?|immer)", r"auf keinen fall"),
    not_rules=(r"immer noch", r"nie im leben", r"wie immer", r"immer wieder"),
    corrections=(r"stattdessen", r"nein,? (?:nimm|verwende|benutze|nutze|bleib(?:e)? bei|wechsle zu)",
                 r"(?:nimm|verwende|benutze|nutze) lieber", r"lass uns (?:\S+ ){1,3}nehmen"),
    sections={
        Kind.DECISION: (r"(?:getroffene |wichtige )?entscheidungen?",),
        Kind.GOTCHA: (r"(?:grund)?ursachen?", r"stolperfallen?", r"fallstricke?",
                      r"bekannte probleme", r"was (?:ist )?schief(?:gelaufen| ging)",
                      r"lehren", r"erkenntnisse"),
        Kind.PREREQUISITE: (r"voraussetzungen", r"anforderungen", r"einrichtung",
                            r"installation"),
        Kind.NEXT_STEP: (r"(?:mögliche |empfohlene )?nächste schritte", r"nächster schritt",
                         r"als nächstes", r"offene punkte", r"(?:noch )?offen",
                         r"noch zu tun", r"(?:noch )?ausstehend", r"to-?dos?",
                         r"weiteres vorgehen", r"was (?:noch )?fehlt", (r"verbleibende "
                         r"(?:arbeit|aufgaben|schritte)"), r"für später"),
        Kind.QUESTION: (r"offene fragen?", r"fragen", r"ungeklärt", r"zu entscheiden"),
    },
    labels={
        Kind.DECISION: (r"entscheidung", r"entschieden"),
        Kind.GOTCHA: (r"(?:grund)?ursache", r"lösung", r"behoben", r"stolperfalle",
                      r"fallstrick", r"erkenntnis", r"lektion"),
        Kind.PREREQUISITE: (r"voraussetzung(?:en)?",),
        Kind.NEXT_STEP: (r"nächste(?:r)? schritte?", r"als nächstes", r"offen", r"noch offen",
                         r"noch zu tun", r"ausstehend", r"nächstes mal"),
        Kind.QUESTION: (r"offene fragen?",),
    },
    done=(r"erledigt", r"abgeschlossen", r"umgesetzt", (r"(?:durchgeführte |vorgenommene )?"
          r"änderungen"), r"was (?:ich )?(?:gemacht|geändert) (?:habe|wurde)", r"ergebnis(?:se)?"),
    steps=(r"als nächst(?:es|er schritt)", r"(?:der )?nächste schritt (?:ist|wäre|wird)",
          r"nächste schritte", r"(?:muss|müssen|sollte|sollten) (?:\S+ ){0,6}?noch",
          r"fehlt noch", r"fehlen noch", r"steh(?:t|en) noch aus", r"(?:ist|sind) noch offen",
          (r"noch nicht (?:\S+ )?(?:implementiert|umgesetzt|erledigt|getestet|eingebaut|"
          r"angebunden|migriert|gebaut|geschrieben|fertig)"),
          r"(?:bleibt|bleiben) noch", r"noch zu (?:tun|erledigen)", r"in der nächsten sitzung",
          r"unvollständig", r"halb fertig"),
    choices=((r"(?:ich habe|wir haben|habe) (?:mich|uns) (?:\S+ ){0,8}?(?:für|gegen) "
              r"(?:\S+ ){0,8}?entschieden"), r"(?:ich|wir) (?:habe|haben) entschieden",
              r"(?:ich|wir) entschied(?:en)?", r"die entscheidung (?:war|ist|fiel)",
              r"(?:ich|wir) (?:habe|haben) (?:\S+ ){0,4}?gewählt",
              r"(?:ich|wir) bleibe?n? bei", r"zugunsten von"),
    contrast=(r"statt", r"anstatt", r"anstelle von", r"an stelle von"),
    actor=(r"(?:ich|wir) (?:habe|haben|hab)", r"(?:habe|haben) (?:ich|wir)"),
    causes=(r"die (?:eigentliche |wahre )?ursache (?:war|ist|lag)", r"ursache war",
            r"(?:das|der) (?:eigentliche |wahre )?(?:problem|fehler|bug) (?:war|ist|lag)",
            r"lag (?:daran|an)", r"liegt (?:daran|an)", r"stellte sich heraus",
            r"(?:hat|hatte) sich (?:\S+ ){0,2}herausgestellt", r"wurde durch (?:\S+ ){1,6}verursacht",
            r"verursacht durch", r"(?:die |der )?(?:lösung|fix) (?:war|ist|bestand)",
            r"(?:behoben|gelöst|repariert),? (?:indem|durch)",
            (r"(?:schlug|schlägt|schlagen|scheitert|scheiterte|brach|bricht|stürzt|stürzte|hängt|"
            r"hing|fehlschl\w*|abgebrochen|abgestürzt|kaputt) (?:\S+ ){0,8}?(?:weil|wegen|da)")),
    unknowns=(r"(?:noch )?unklar,? ob", r"nicht (?:ganz )?sicher,? ob", r"offene frage",
              r"(?:noch )?nicht entschieden", (r"(?:musst|müssen) (?:du|wir|sie) (?:noch )?"
              r"entscheiden")),
    hedge=(r"vielleicht", r"möglicherweise", r"eventuell", r"evtl", r"könnte", r"könnten",
           r"würde", r"würden", r"wahrscheinlich", r"vermutlich", r"ich glaube", r"ich denke",
           r"scheint", r"scheinen", r"falls", r"wenn (?:wir|du|sie|man)", r"ob", r"optional",
           r"alternativ", r"sollten wir", r"empfehle", r"schlage vor"),
    narration=(r"lass(?:t)? mich", r"ich (?:schaue|prüfe|lese|suche|teste|starte|sehe mir)",
               (r"ich werde (?:jetzt |nun |zuerst )?(?:\S+ ){0,3}?(?:prüfen|schauen|lesen|suchen|"
               r"nachsehen|ansehen|testen|ausführen|untersuchen|überprüfen|anpassen|ändern)"),
               r"schauen wir", r"sehen wir uns", r"jetzt (?:prüfe|schaue|lese|teste|führe)",
               r"(?:zuerst|nun|jetzt) (?:muss|will) ich"),
)
