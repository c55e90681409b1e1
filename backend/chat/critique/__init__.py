"""Critics and critique rounds (issue 26.1, seed 001): LLM critics (fact checker, stylist,
structure analyst) and the deterministic format checker rate a generated text 0-10 with
issues and suggestions; a text that does not pass every active critic is revised by the
model with the critiques, up to N rounds, and every round is stored (docs/chat.md "Critics").

defaults.py  the seeded critics' prompts and rubrics
feedback.py  the seed's feedback format: parsing a model's reply, the format checker's rating
critics.py   critics in the store: list, get, create, update, seed
rounds.py    one run of critique rounds on a text, stored as it goes
runs.py      stored runs read back (a message's, the recent ones)"""
