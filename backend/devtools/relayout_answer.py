"""Rewrite imports, mock paths and doc references after moving the answer path into
backend/answer/ (issue 22, item 8): `python backend/devtools/relayout_answer.py` from the repository
root, also on branches made before the move (idempotent); prints the files changed."""
import re
import subprocess
import sys

MODULES = [  # (old dotted module, new dotted module)
    ("backend.evidence", "backend.answer.evidence"),
    ("backend.llm.extractive", "backend.answer.extractive"),
    ("backend.analysis.intents", "backend.answer.intents"),
    ("backend.analysis.chat_route", "backend.answer.route"),
    ("backend.analysis.chat_answers", "backend.answer.analysis_answers"),
    ("backend.analysis.chat_compose", "backend.answer.compose"),
]
FROM_IMPORTS = [  # "from pkg import name" forms
    (r"from backend\.analysis import chat_route\b", "from backend.answer import route as chat_route"),
    (r"from backend\.analysis import chat_answers as answers\b",
     "from backend.answer import analysis_answers as answers"),
    (r"from backend\.analysis import chat_answers\b",
     "from backend.answer import analysis_answers as chat_answers"),
    (r"from backend\.analysis import chat_compose\b",
     "from backend.answer import compose as chat_compose"),
    (r"from backend\.analysis import intents\b", "from backend.answer import intents"),
    (r"from backend\.llm import extractive\b", "from backend.answer import extractive"),
]
PATHS = [  # file paths in docs and docstrings (longest first)
    ("backend/evidence/", "backend/answer/evidence/"),
    ("backend/llm/extractive.py", "backend/answer/extractive.py"),
    ("backend/analysis/intents.py", "backend/answer/intents.py"),
    ("backend/analysis/chat_route.py", "backend/answer/route.py"),
    ("backend/analysis/chat_answers.py", "backend/answer/analysis_answers.py"),
    ("backend/analysis/chat_compose.py", "backend/answer/compose.py"),
    ("analysis/chat_route.py", "answer/route.py"),
    ("analysis/chat_answers.py", "answer/analysis_answers.py"),
    ("analysis/chat_compose.py", "answer/compose.py"),
    ("analysis/chat_*.py", "answer/"),
    ("llm/extractive.py", "answer/extractive.py"),
]


def rewrite(text: str) -> str:
    for rx, new in FROM_IMPORTS:
        text = re.sub(rx, new, text)
    for old, new in MODULES:
        text = re.sub(re.escape(old) + r"(?![\w])", new, text)
    for old, new in PATHS:
        text = re.sub(r"(?<![\w/])" + re.escape(old) if not old.startswith("backend/")
                      else re.escape(old), new, text)
    return text


files = subprocess.run(["git", "ls-files", "*.py", "*.md", "*.yaml", "*.ini", "*.txt", "*.toml",
                        ".ci/*"], capture_output=True, text=True, check=True).stdout.split()
for f in files:
    if f.endswith("relayout_answer.py"):  # its own tables stay as they are
        continue
    try:
        old = open(f, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError):
        continue
    new = rewrite(old)
    if new != old:
        open(f, "w", encoding="utf-8").write(new)
        print(f)
sys.exit(0)
