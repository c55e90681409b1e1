"""Evidence for answers: sentence splitting (German and English), answer candidates from the
retrieved contexts, their scoring against the question (lexical, key, value, embedding,
language), the abstention decision, and the support check of generated answers.

Used by the extractive answerer (backend/answer/extractive.py), the chat's evidence gate and
groundedness check (backend/chat/service.py) and the citation checker (backend/chat/prompt.py)."""
