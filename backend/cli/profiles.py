"""Author profile commands of `python -m backend` (`register(subparsers)`; issue 26):

    profiles list [--json]                     every profile with its rules in one line
    profiles show ID|NAME [--json] [--language de|en]   fields and the rules as prompt text
    profiles create --name N [--tone T] [--formality F] [--address A] [--max-sentence-words N]
                    [--forbid WORD ...] [--format markdown|plain] [--description D] [--rule R ...]
    profiles create --from-yaml FILE [field options override the file's]
    profiles delete ID|NAME                    sessions and chatbots using it fall back to none
    profiles samples                           create the sample profiles that are missing

The operator acts unless `--as USER` names a dashboard user (then the user's role decides:
editors change profiles). Errors name the field (or the file) and the reason."""
from __future__ import annotations

import json

from backend.chat.profile_rules import ADDRESSES, FORMALITIES, OUTPUT_FORMATS
from backend.cli import common


def _svc():
    from backend.chat.profiles import ProfileService

    return ProfileService(common._rs())


def _line(p) -> str:
    rules = [p.formality, f"address {p.address}", p.output_format]
    if p.max_sentence_words:
        rules.append(f"≤{p.max_sentence_words} words/sentence")
    if p.forbidden_words:
        rules.append(f"{len(p.forbidden_words)} forbidden word(s)")
    return f"{p.id:>4}  {p.name:<28} {', '.join(rules)}"


def cmd_list(a) -> int:
    profiles = _svc().list()
    if a.json:
        print(json.dumps([p.to_dict() for p in profiles], ensure_ascii=False, indent=2))
    elif not profiles:
        print("no author profiles (create one: python -m backend profiles create --name N, "
              "or the samples: python -m backend profiles samples)")
    for p in [] if a.json else profiles:
        print(_line(p))
    return 0


def cmd_show(a) -> int:
    svc = _svc()
    p = svc.show(a.profile)
    sessions, bots = svc.usage(p.id)
    if a.json:
        print(json.dumps({**p.to_dict(), "in_use": {"sessions": sessions, "chatbots": bots}},
                         ensure_ascii=False, indent=2))
        return 0
    print(_line(p))
    if p.description:
        print(f"      {p.description}")
    print(f"      used by {sessions} chat session(s) and {bots} chatbot(s)\n")
    print(p.style_rules_text(a.language))
    return 0


def _options(a) -> dict:
    values = {"name": a.name, "description": a.description, "tone": a.tone,
              "formality": a.formality, "address": a.address,
              "max_sentence_words": a.max_sentence_words, "output_format": a.format,
              "forbidden_words": a.forbid, "extra_rules": "\n".join(a.rule) if a.rule else None}
    return {k: v for k, v in values.items() if v is not None}


def cmd_create(a) -> int:
    from backend.chat.profiles import InvalidProfile, load_yaml

    values = load_yaml(a.from_yaml) if a.from_yaml else {}
    values.update(_options(a))
    if not values.get("name"):
        raise InvalidProfile("name", "give --name (or a name in the --from-yaml file)")
    p = _svc().create(common.actor_of(a), **values)
    print(f"created author profile {p.id}: {p.name}")
    return 0


def cmd_delete(a) -> int:
    print(_svc().delete(common.actor_of(a), a.profile).message())
    return 0


def cmd_samples(a) -> int:
    made = _svc().ensure_samples(common.actor_of(a))
    print(f"created {len(made)} sample profile(s)" + (": " + ", ".join(p.name for p in made)
                                                       if made else " (all exist)"))
    return 0


def sample_profiles() -> None:
    """`up`: the sample profiles on a store without any (a deleted sample stays deleted)."""
    svc = _svc()
    if not svc.list():
        made = svc.ensure_samples()
        print(f"author profiles: {', '.join(p.name for p in made)} (samples)")


def register(sub) -> None:
    x = sub.add_parser("profiles", help="author profiles (style rules of chat and chatbots)")
    ps = x.add_subparsers(dest="profiles_cmd", required=True)
    c = ps.add_parser("list", help="every author profile")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_list)
    c = ps.add_parser("show", help="one profile and its rules as prompt text")
    c.add_argument("profile", help="id or name")
    c.add_argument("--language", choices=("en", "de"), default="en",
                   help="language of the rules text (default en)")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_show)
    c = ps.add_parser("create", help="create a profile from options or a YAML file")
    c.add_argument("--from-yaml", metavar="FILE", help="the profile's fields as a YAML mapping")
    c.add_argument("--name")
    c.add_argument("--description")
    c.add_argument("--tone", help="free text, e.g. 'sachlich, präzise'")
    c.add_argument("--formality", choices=FORMALITIES)
    c.add_argument("--address", choices=ADDRESSES, help="form of address (sie/du: German)")
    c.add_argument("--max-sentence-words", type=int, metavar="N", help="longest sentence")
    c.add_argument("--forbid", action="append", metavar="WORD",
                   help="a word or form never used (repeatable)")
    c.add_argument("--format", help=f"output format: {', '.join(OUTPUT_FORMATS)} "
                                    "('reiner Text' means plain)")
    c.add_argument("--rule", action="append", metavar="TEXT", help="another rule (repeatable)")
    c.set_defaults(fn=cmd_create)
    c = ps.add_parser("delete", help="delete a profile (its users fall back to none)")
    c.add_argument("profile", help="id or name")
    c.set_defaults(fn=cmd_delete)
    c = ps.add_parser("samples", help="create the sample profiles that are missing")
    c.set_defaults(fn=cmd_samples)
