"""Spanish: the phrases of each rule family (see :mod:`vaultmem.mining.lang`)."""

from __future__ import annotations

from vaultmem.notes.schema import Kind

from .table import Language, wordset

LANGUAGE = Language(
    code="es",
    marks=wordset(
        "el los las una unos y del por para con lo al pero como está están fue ha hemos hay "
        "ya muy también esto este esta eso ahora cuando sin sobre porque todo pero ser son "
        "era tiene hace puede"
    ),
    greetings=(r"hola", r"buen(?:os|as)? (?:días|dias|tardes|noches)", r"qué tal", r"que tal",
               r"saludos", r"buenas"),
    fillers=(r"ok(?:ay)?", r"vale", r"bueno", r"bien", r"sí", r"si", r"entonces", r"ahora",
             r"por favor", r"porfa", r"puedes", r"podrías", r"vamos a", r"venga", r"dale"),
    carry_on=(r"contin[uú]a(?:r|mos|d)?", r"sigue", r"seguimos", r"sigamos", r"seguir",
              r"retoma(?:r|mos)?", r"reanuda(?:r|mos)?", r"adelante",
              r"¿?(?:en )?d[oó]nde (?:estábamos|quedamos|nos quedamos)\??"),
    carry_on_tail=(r"(?:desde |por )?donde (?:lo )?(?:dejamos|nos quedamos|lo dejé)",
                   (r"(?:con |de )?(?:la|el) (?:última|anterior|último) (?:sesión|conversación|"
                   r"trabajo)"), r"(?:con |de )?la sesión (?:anterior|pasada)",
                   r"(?:con )?el trabajo"),
    no_task=wordset(
        "gracias muchas vale perfecto genial excelente sigue continúa continua adelante dale "
        "venga bueno claro listo correcto los las una unos del por para con pero como está "
        "están fue hemos hay muy también esto este esta eso ahora"
    ),
    rules=(r"nunca", r"siempre", r"a partir de ahora", r"de ahora en adelante",
           r"en adelante", r"en el futuro", r"jamás", r"evita(?:r)?",
           r"no (?:\S+ ){1,3}nunca", r"usa (?:\S+ ){1,4}(?:en lugar de|en vez de|y no|no)"),
    not_rules=(r"siempre que", r"como siempre", r"nunca jamás"),
    corrections=(r"en su lugar", r"no,? (?:usa|utiliza|quédate con|cambia a|pasa a)",
                 r"mejor (?:usa|utiliza)", r"(?:vamos|quedémonos) con"),
    sections={
        Kind.DECISION: (r"(?:principales |las )?decisiones(?: tomadas)?", r"decisión"),
        Kind.GOTCHA: (r"causas? (?:raíz|raiz|principal(?:es)?)", r"trampas", (r"problemas "
                      r"conocidos"), r"qué (?:salió|fue) mal", r"lecciones aprendidas"),
        Kind.PREREQUISITE: (r"requisitos(?: previos)?", r"requerimientos",
                            r"configuración (?:necesaria|requerida)", r"instalación"),
        Kind.NEXT_STEP: (r"(?:próximos|siguientes) pasos", r"pasos siguientes",
                         r"próximo paso", r"pendientes?", r"por hacer", r"tareas pendientes",
                         r"trabajo pendiente", r"lo que (?:queda|falta)(?: por hacer)?",
                         r"para más tarde"),
        Kind.QUESTION: (r"preguntas(?: abiertas| pendientes)?", r"dudas", r"por decidir"),
    },
    labels={
        Kind.DECISION: (r"decisión", r"decidido"),
        Kind.GOTCHA: (r"causa(?: raíz)?", r"arreglo", r"corrección", r"trampa",
                      r"lección(?: aprendida)?"),
        Kind.PREREQUISITE: (r"requisitos?(?: previos?)?",),
        Kind.NEXT_STEP: (r"(?:próximos|siguientes) pasos", r"próximo paso", r"pendientes?",
                         r"por hacer", r"la próxima vez"),
        Kind.QUESTION: (r"preguntas? abiertas?",),
    },
    done=(r"completado", r"hecho", r"terminado", r"realizado", (r"cambios (?:realizados|"
          r"hechos)"), r"lo que se hizo", r"resultados?"),
    steps=(r"(?:el )?(?:próximo|siguiente) paso (?:es|sería|será)", r"próximos pasos",
          r"siguientes pasos", r"queda(?:n)? (?:pendientes?|por)", (r"falta(?:n)? (?:por |aún |"
          r"todavía )?\w+"), r"todavía (?:hay que|falta|queda)", r"aún (?:hay que|falta|queda)",
          (r"(?:aún|todavía) no (?:está|están|se ha|ha sido|han sido)? ?(?:\S+ )?(?:implementad|"
          r"hech|probad|integrad|migrad|escrit|terminad|conectad)[oa]s?"),
          r"en la (?:próxima|siguiente) sesión", r"incomplet[oa]s?", r"a medias"),
    choices=(r"(?:he|hemos) (?:\S+ )?(?:elegido|optado|decidido|escogido)",
              r"(?:decidí|decidimos|elegí|elegimos|opté|optamos|escogí|escogimos)",
              r"la decisión (?:fue|es|ha sido)", r"nos quedamos con", r"me quedé con",
              r"a favor de"),
    contrast=(r"en lugar de", r"en vez de"),
    actor=(r"(?:he|hemos) \w+(?:ado|ido)", r"\w+(?:é|í|amos|imos)"),
    causes=(r"la (?:verdadera |auténtica )?causa (?:era|es|fue|estaba)",
            r"el (?:verdadero )?(?:problema|error|fallo|bug) (?:era|es|fue|estaba)",
            r"result[óo] (?:ser|que)", r"se deb[íi]a a", r"(?:era|es|fue) debido a",
            r"causad[oa] por", r"(?:la )?(?:solución|corrección|arreglo) (?:fue|era|es|ha sido)",
            (r"(?:lo )?(?:solucioné|arreglé|corregí|resolví|solucionamos|arreglamos|corregimos) "
            r"(?:\S+ ){0,4}?(?:con|al|cambiando|usando|añadiendo)"),
            (r"(?:falla\w*|fall[óo]|fallaba|romp\w*|rot[oa]|colg\w*|error\w*|timeout) "
            r"(?:\S+ ){0,8}?(?:porque|debido a|a causa de|ya que)")),
    unknowns=(r"no (?:está|queda) claro si", r"no (?:estoy|estamos) segur[oa]s? de si",
              r"pregunta abierta", r"queda por (?:decidir|ver|determinar)",
              r"(?:tienes|tenemos|tienen) que decidir"),
    hedge=(r"quizás?", r"tal vez", r"a lo mejor", r"podría", r"podrían", r"podríamos",
           r"probablemente", r"posiblemente", r"creo que", r"parece", r"parecen",
           r"si (?:usamos|quieres|prefieres|se|lo)", r"opcional(?:mente)?", r"sugiero",
           r"recomiendo", r"habría que"),
    narration=(r"d[ée]jame", (r"voy a (?:\S+ ){0,2}?(?:revisar|ver|leer|buscar|comprobar|"
               r"verificar|ejecutar|probar|mirar|analizar|inspeccionar|corregir|modificar|"
               r"actualizar)"), r"veamos", r"revisemos", r"vamos a ver", r"comprobemos",
               r"(?:ahora|primero) (?:reviso|miro|leo|busco|compruebo|ejecuto)"),
)
