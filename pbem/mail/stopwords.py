"""Which of pbem's languages a mail is written in, guessed from its words (issue 33, item 9).

Used only for a sender who has no language yet (no confirmed account) and whose mail has no
Content-Language header in a language pbem speaks. The guess counts, in the first MAX_WORDS words
of the lines a sender wrote (quotes and signatures are gone already; "/" commands are not
counted), the words of each language's list of its most common short words (articles, pronouns,
"please", "thanks", "game"). A word of two of the lists counts for neither ("hallo", "je"); the most
common words shared by these languages ("in", "de", "en", "die", "was") are in no list.
The guess is the language with the most, if it has at least MIN_HITS and clearly more than the
next (MARGIN times); else there is none and the caller keeps its default.

A stopword count is bounded (MAX_WORDS words, one set look-up each), needs no model, and says
why it chose: enough for a first mail of a few lines. A language-identification library (a
model of character n-grams) would be more accurate on two words, but a first mail of two words
is "/new tongiaki", which no method reads.
"""

from __future__ import annotations

import re
from collections import Counter

MAX_WORDS = 300
MIN_HITS = 3
MARGIN = 1.5
_WORD = re.compile(r"[^\W\d_]+")

STOPWORDS = {
    "en": """the and to of you that it for with this have are be not on my your can would like please thanks
             thank hello hi play game games i me we what how there just but if from at do am or they been
             want could should which when who our us any new join""",
    "de": """der das und ich nicht ist zu den mit sich dem ein eine einen einem einer auch sie wir mir mich
             bitte danke hallo spielen spiel möchte gerne gern ja nein wie oder aber noch kann mein meine dein
             habe hier doch schon sehr mal nur wenn dass bei vom zum zur über grüße gruß viele liebe ihr euch
             würde wäre neues neue mitspielen""",
    "nl": """het een van ik niet dat je zijn op te met voor ook maar er om wat wil graag bedankt dank hallo hoi
             spelen spel mijn jij jou wij hebben heb kunnen naar bij nog uit dit deze hoe alsjeblieft
             groeten groet zou mag uw jullie ben nieuw meedoen""",
    "fr": """le la les et un une des du est je pas que qui pour dans ce il elle nous vous avec sur au aux mais
             ou mon ma mes votre vos merci bonjour salut jouer partie jeu veux voudrais bien très suis cette
             son sa ses ont avez moi toi cordialement nouvelle nouveau rejoindre""",
}
_SETS = {language: set(words.split()) for language, words in STOPWORDS.items()}
_SHARED = {word for language, words in _SETS.items() for word in words
           if any(word in other for name, other in _SETS.items() if name != language)}
_SETS = {language: words - _SHARED for language, words in _SETS.items()}


def guess(lines: list[str]) -> str | None:
    """The language of these lines (one of pbem.i18n.LANGUAGES), or None when the words do not say."""
    hits: Counter[str] = Counter()
    seen = 0
    for line in lines:
        if line.startswith("/"):
            continue
        for word in _WORD.findall(line.lower()):
            seen += 1
            if seen > MAX_WORDS:
                break
            for language, words in _SETS.items():
                if word in words:
                    hits[language] += 1
        if seen > MAX_WORDS:
            break
    ranked = hits.most_common(2)
    if not ranked or ranked[0][1] < MIN_HITS:
        return None
    if len(ranked) > 1 and ranked[0][1] < MARGIN * ranked[1][1]:
        return None
    return ranked[0][0]
