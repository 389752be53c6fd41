"""French: the phrases of each rule family (see :mod:`vaultmem.mining.lang`)."""

from __future__ import annotations

from vaultmem.notes.schema import Kind

from .table import Language, wordset

LANGUAGE = Language(
    code="fr",
    marks=wordset(
        "le les une des du et est sont pas je nous vous il elle ils qui dans pour avec sur "
        "cette mais été être ont ai avons au aux ces ne plus ça c'est n'est j'ai qu'il "
        "d'un d'une l'on donc car déjà aussi très fait faut peut"
    ),
    greetings=(r"bonjour", r"bonsoir", r"salut", r"coucou", r"re(?:bonjour)?"),
    fillers=(r"ok(?:ay)?", r"d'accord", r"alors", r"bon", r"bien", r"oui", r"donc",
             r"maintenant", r"s'il (?:te|vous) pla[iî]t", r"stp", r"svp", r"on", r"peux-tu",
             r"pouvez-vous", r"tu peux", r"vous pouvez", r"allez"),
    carry_on=(r"continu(?:e|ez|ons|er)", r"repren(?:ds|dre|ons|ez)", r"poursui(?:s|vre|vons|vez)",
              r"vas-y", r"allez-y", r"on (?:continue|reprend|poursuit)",
              r"où en (?:étions|sommes|étais|suis)[- ](?:nous|je)",
              r"on en était où", r"on en est où"),
    carry_on_tail=((r"(?:là )?où (?:on|nous|je|tu) (?:s'était|s'est|nous étions|en étions|"
                   r"m'étais|t'étais) arrêtée?s?"),
                   (r"(?:la |le |de la |du )?(?:dernière|précédente|dernier|précédent) "
                   r"(?:session|conversation|travail)"),
                   r"(?:le|la) (?:session|travail|tâche)(?: (?:précédente?|d'avant))?"),
    no_task=wordset(
        "merci beaucoup oui ouais parfait super génial excellent continue continuez vas-y "
        "allez-y accord d'accord entendu nickel bien top les des une est sont pas nous vous "
        "elle ils qui dans pour avec sur cette mais été être ont avons aux ces plus c'est "
        "j'ai fait"
    ),
    rules=(r"(?:ne |n')?jamais", r"toujours", r"désormais", r"dorénavant",
           r"à partir de maintenant", r"à l'avenir", r"dès maintenant", r"évite[rz]?",
           r"n'utilise (?:\S+ ){0,2}jamais", r"ne (?:\S+ ){1,3}jamais",
           r"utilise (?:\S+ ){1,4}(?:au lieu de|plutôt que|et non|pas)"),
    not_rules=(r"toujours pas", r"jamais de la vie", r"comme toujours", r"pas toujours"),
    corrections=(r"à la place", r"non,? (?:utilise|prends|garde|passe à|reste sur)",
                 r"(?:utilise|prends|garde)z? plutôt", r"partons sur"),
    sections={
        Kind.DECISION: (r"(?:principales |les )?décisions?(?: prises)?",),
        Kind.GOTCHA: (r"causes? (?:racines?|profondes?)", r"pièges?", r"problèmes connus",
                      r"ce qui (?:n'a pas marché|a mal tourné)", r"leçons? (?:apprises?|tirées?)"),
        Kind.PREREQUISITE: (r"pré-?requis", r"configuration (?:requise|nécessaire)",
                            r"mise en place"),
        Kind.NEXT_STEP: (r"(?:prochaines?|suivantes?) étapes?", r"étapes? suivantes?",
                         r"reste à faire", r"à faire", r"ce qui reste(?: à faire)?",
                         r"points (?:ouverts|en suspens|restants)", r"en suspens",
                         r"travail restant", r"tâches restantes", r"pour plus tard"),
        Kind.QUESTION: (r"questions? (?:ouvertes?|en suspens)", (r"points à (?:clarifier|"
                        r"trancher)"), r"à décider"),
    },
    labels={
        Kind.DECISION: (r"décision", r"décidé"),
        Kind.GOTCHA: (r"cause(?: racine)?", r"correctif", r"correction", r"piège",
                      r"leçon(?: apprise)?"),
        Kind.PREREQUISITE: (r"pré-?requis",),
        Kind.NEXT_STEP: (r"prochaines? étapes?", r"étapes? suivantes?", r"reste à faire",
                         r"à faire", r"ensuite", r"la prochaine fois"),
        Kind.QUESTION: (r"questions? ouvertes?",),
    },
    done=(r"terminé", r"fait", r"réalisé", (r"(?:modifications|changements) (?:effectués|"
          r"apportés)"), r"ce qui a été fait", r"résultats?"),
    steps=(r"(?:la )?prochaine étape (?:est|serait|sera)", r"prochaines étapes",
          r"il (?:me |nous |te |vous )?reste(?:ra)? (?:encore )?à", r"reste à (?:faire|\w+er)",
          r"il faudra (?:encore )?", r"(?:doit|doivent) encore",
          (r"pas encore (?:été )?(?:implémenté|fait|testé|branché|intégré|migré|écrit|terminé|"
          r"géré|couvert)e?s?"), r"n'est pas (?:encore )?terminée?", r"à faire ensuite",
          r"lors de la prochaine session", r"inachevée?s?", r"incomplète?s?"),
    choices=(r"(?:j'ai|nous avons|on a) (?:\S+ )?(?:choisi|opté|décidé|retenu|tranché)",
              r"(?:je|nous) (?:choisis|optons|décidons)", r"la décision (?:a été|est|était)",
              r"(?:j'ai|nous avons|on a) (?:\S+ )?préféré", r"en faveur de"),
    contrast=(r"au lieu de", r"plutôt que", r"à la place de"),
    actor=(r"j'ai", r"nous avons", r"on a"),
    causes=(r"la (?:vraie |véritable )?cause (?:était|est|venait)",
            r"le (?:vrai |véritable )?(?:problème|bug|souci) (?:était|est|venait)",
            r"(?:venait|vient) d[eu']", r"s'est avéré", r"il s'avère", r"il s'est avéré",
            r"(?:était|est) dû à", r"(?:était|est) due à", r"causée? par",
            r"(?:la |le )?(?:solution|correctif) (?:était|a été|est) de",
            r"(?:corrigé|résolu|réglé) en", r"à cause d[eu']",
            (r"(?:échou\w*|plant\w*|bloqu\w*|cass\w*|erreur\w*|timeout) (?:\S+ ){0,8}?"
            r"(?:parce qu|car|à cause)")),
    unknowns=(r"(?:pas encore |toujours pas )?(?:clair|sûr),? si", r"question ouverte",
              r"reste à (?:décider|déterminer|voir)", (r"(?:tu dois|vous devez|nous devons) "
              r"(?:encore )?décider")),
    hedge=(r"peut-être", r"pourrait", r"pourraient", r"pourrions", r"probablement",
           r"sans doute", r"je pense", r"je crois", r"semble", r"semblent", (r"si (?:on|nous|"
           r"vous|tu|je)"), r"éventuellement", r"optionnel(?:lement)?", r"il faudrait",
           r"je suggère", r"je recommande", r"on pourrait"),
    narration=(r"laisse[zr]?-moi", (r"je vais (?:maintenant |d'abord )?(?:\S+ ){0,2}?(?:vérifier|"
               r"regarder|lire|chercher|examiner|lancer|tester|exécuter|analyser|inspecter|"
               r"corriger|modifier|mettre à jour)"), r"voyons", r"regardons", r"vérifions",
               r"je (?:regarde|vérifie|lis|cherche|lance|teste)"),
)
