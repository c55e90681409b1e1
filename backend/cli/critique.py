"""Critique commands of `python -m backend` (issue 26.1; docs/chat.md "Critics"):

    critique MESSAGE_ID | --text T [--question Q] [--sources FILE ...] [--rounds N]
        [--provider P] [--style-rules FILE] [--json]
    critics [--json]

`critique` runs the active critics on a stored answer (its `message_id`, as `ask --json` and
the API give it) or on a given text, revises it with the critiques up to N times (default
RAGSCOPE_CRITIQUE_MAX_ROUNDS) and prints every round: each critic's rating, issues and
suggestions, the revisions and the final status (validated | revised | failed). `--sources`
(repeatable): a JSON list of sources (strings or {"title", "text"}) or any text file as one
source. The exit code is 0 when the text passed in the end, 1 when it did not."""
from __future__ import annotations

import json
import sys

from backend.cli import common
from backend.llm.factory import PROVIDERS


def _progress(a):
    return None if a.json else (lambda msg: print(f"… {msg}", file=sys.stderr, flush=True))


def cmd_critique(a) -> int:
    from backend.services import critique

    rs = common._rs()
    actor = common.actor_of(a, rs)
    style = _style_rules(a.style_rules) if a.style_rules else None
    if (a.message_id is None) == (a.text is None):
        raise critique.CritiqueInputError("text", "give a MESSAGE_ID or --text, not both "
                                                  "and not neither")
    if a.message_id is not None:
        if a.sources:
            raise critique.CritiqueInputError("sources", "--sources is for --text; a stored "
                                              "answer is checked against its own sources")
        run = critique.critique_message(rs, actor, a.message_id, rounds=a.rounds,
                                        provider=a.provider, style_rules=style,
                                        progress=_progress(a))
    else:
        sources = [src for f in a.sources or [] for src in critique.load_sources_file(f)]
        run = critique.critique_text(rs, actor, a.text, sources=sources, question=a.question,
                                     rounds=a.rounds, provider=a.provider, style_rules=style,
                                     progress=_progress(a))
    if a.json:
        print(json.dumps(run, ensure_ascii=False, indent=2))
    else:
        print_run(run)
    return 0 if run["status"] in ("validated", "revised") else 1


def _style_rules(path: str) -> str:
    from pathlib import Path

    from backend.services.critique import CritiqueInputError

    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CritiqueInputError("style_rules", f"{path}: cannot be read ({e})") from None


def print_run(run: dict) -> None:
    for rnd in run["critique_rounds"]:
        print(f"round {rnd['round']}: {'all passed' if rnd['all_passed'] else 'not passed'}")
        for c in rnd["critiques"]:
            rating = "failed" if c["rating"] is None else f"{c['rating']:g}/10"
            mark = "pass" if c["passed"] else "FAIL"
            print(f"  {c['critic']} ({c['type']}): {rating} (needs {c['threshold']:g}) {mark}")
            for i in c["issues"]:
                print(f"    issue: {i}")
            for x in c["suggestions"]:
                print(f"    suggestion: {x}")
            if c["error"]:
                print(f"    error: {c['error']}")
        if rnd["revision"]:
            print(f"  revision:\n{_indent(rnd['revision'])}")
    print(f"status: {run['status']} after {run['rounds']} round(s) "
          f"({run['provider']}/{run['model']}, {(run['duration_ms'] or 0) / 1000:.1f} s, "
          f"run {run['id']})")
    if run["error"]:
        print(f"error: {run['error']}")
    if run["final_text"] != run["original_text"]:
        print(f"final text:\n{_indent(run['final_text'])}")


def _indent(text: str) -> str:
    return "\n".join("    " + ln for ln in text.splitlines())


def cmd_critics(a) -> int:
    from backend.services import critique

    rs = common._rs()
    found = critique.list_critics(rs, common.actor_of(a, rs))
    if a.json:
        print(json.dumps([c.to_dict() for c in found], ensure_ascii=False, indent=2))
        return 0
    for c in found:
        state = "active" if c.active else "off"
        print(f"{c.id:>3}  {c.name:<20} {c.type:<10} threshold {c.threshold:g}  {state}")
    return 0


def register(sub) -> None:
    x = sub.add_parser("critique", help="critique an answer or text and revise it in rounds")
    x.add_argument("message_id", nargs="?", type=int, metavar="MESSAGE_ID",
                   help="a stored answer's message id")
    x.add_argument("--text", help="critique this text instead of a stored answer")
    x.add_argument("--question", default="", help="the question the text answers")
    x.add_argument("--sources", action="append", metavar="FILE",
                   help="sources of --text: a JSON list or a text file (repeatable)")
    x.add_argument("--rounds", type=int, help="revisions at most (default "
                   "RAGSCOPE_CRITIQUE_MAX_ROUNDS; 0: critique only)")
    x.add_argument("--provider", choices=[p for p in PROVIDERS if p != "extractive"])
    x.add_argument("--style-rules", metavar="FILE", help="the stylist's rules as text")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_critique)
    x = sub.add_parser("critics", help="list the configured critics")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_critics)
