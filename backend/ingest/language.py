"""A cheap, deterministic German/English detector based on stop words."""
from __future__ import annotations

import re

# Words frequent in one language and rare in the other ("was", "in", "an", "so" are both).
_DE = frozenset(
    """der die das den dem des ein eine einer eines einem einen und oder nicht ist sind war
    waren wird werden wurde wurden hat haben hatte gibt gab es ich du er sie wir ihr mit von
    zu zum zur auf für bei aus nach über unter wie wer wo wann warum welche welcher welches
    welchen wieso weshalb auch noch nur schon sehr kann können muss müssen soll sollen
    dass daß wenn aber als sich mir mich uns euch dieser diese dieses diesem diesen
    kein keine keinen im vom beim am ins durch gegen ohne um bis sowie bzw einem worden""".split()
)
_EN = frozenset(
    """the a and or not is are were be been being has have had does do did of to for
    with on at from by about into over under which what who whom whose where when why how
    this that these those there their they them it its we you he she his her our your can
    could should would shall must may might made make than then only very any
    some each other such no yes if because while""".split()
)
_WORD = re.compile(r"[a-zäöüß]+")
_GERMAN_CHARS = re.compile(r"[äöüß]")


def detect_language(text: str) -> str:
    """"de", "en" or "" (undecided). Looks at the first 20,000 characters."""
    sample = text[:20000].lower()
    de = en = 0
    for word in _WORD.findall(sample):
        if word in _DE:
            de += 1
        elif word in _EN:
            en += 1
    de += min(3, len(_GERMAN_CHARS.findall(sample)))
    if de == en:
        return ""
    return "de" if de > en else "en"
