"""Question words that carry no topic (German and English): left out of word overlap
(backend/answer/evidence/scoring.py) and of dictionary translations
(backend/retrieval/dictionary.py). Here, below both, so neither imports the other."""

STOP_WORDS = frozenset("""
a an and are as at be by can do does did for from has have how i if in into is it its of on or
that the their there these this to was were what when where which who whom why will with you your
my me we our should must may many much long often quickly far had been being
der die das den dem des ein eine einer eines einem einen und oder ist sind wird werden wurde wie
was wer wem wo wohin wann warum welche welcher welches welchen welchem mit von zu zum zur im in
am an auf aus bei fur für über ueber um nach vor nicht auch es sie er wir ich ihr sich noch nur
als dass daß so kann können muss müssen gibt hat haben sein seine ihre dann denn doch wenn
viele viel lange lang hoch oft man mein meine meinen meinem ich habe darf dürfen soll sollen
""".split())
