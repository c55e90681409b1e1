"""Run-time configuration from the command line (issue 26, item 7), admin only (`--as` a
non-admin is refused): `prompts list|show|create|activate|diff` (system prompt versions),
`runtime-settings list|set|reset|audit` (the safe settings and the audit log) and
`domain-rules` (check the YAML files of config/domain, or another folder, before use).
`register(subparsers)` adds them."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from backend.cli import common
from backend.errors import RagscopeError


def _svc():
    from backend.services import admin_config

    return admin_config


def cmd_prompts(a) -> int:
    rs = common._rs()
    actor = common.actor_of(a, rs)
    svc = _svc()
    if a.action == "list":
        for v in svc.prompt_versions_of(rs, actor, a.scope):
            first = v.text.splitlines()[0] if v.text else ""
            print(f"{'*' if v.active else ' '} v{v.version}\t{v.created_by}\t"
                  f"{v.created_at or '-'}\t{v.note or first[:60]}")
    elif a.action == "show":
        v = svc.prompt_version(rs, actor, a.scope, a.version)
        print(json.dumps(v, indent=2, ensure_ascii=False) if a.json else
              (v["system_block"] if a.full else v["text"]))
    elif a.action == "create":
        text = a.text if a.text is not None else _read(a.file)
        v = svc.create_prompt(rs, actor, a.scope, text, a.note or "", activate=a.activate)
        print(f"{a.scope} v{v.version} created" + (", active" if v.active else ""))
    elif a.action == "activate":
        v = svc.activate_prompt(rs, actor, a.scope, a.version)
        print(f"{a.scope} v{v.version} is active" + (" (the built-in default)" if not v.version else ""))
    else:  # diff
        sys.stdout.write(svc.prompt_diff(rs, actor, a.scope, a.a, a.b))
    return 0


def _read(path: str | None) -> str:
    if not path:
        raise RagscopeError("prompts create: give --text or --file")
    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RagscopeError(f"{path}: cannot be read ({e})") from None


def cmd_runtime_settings(a) -> int:
    rs = common._rs()
    actor = common.actor_of(a, rs)
    svc = _svc()
    if a.action == "list":
        rows = svc.editable_settings(rs, actor)
        if a.json:
            print(json.dumps(rows, indent=2, default=str))
        for r in [] if a.json else rows:
            mark = "*" if r["overridden"] else " "
            print(f"{mark} {r['name']}={r['value']!s}\t(environment: {r['default']!s})")
    elif a.action == "set":
        v = svc.set_setting(rs, actor, a.name, a.value)
        print(f"{a.name}={v!s}")
    elif a.action == "reset":
        done = svc.reset_setting(rs, actor, a.name)
        print(f"{a.name}: " + ("reset to the environment's value" if done else "was not overridden"))
    else:  # audit
        entries = svc.audit(rs, actor, kind=a.kind, name=a.name, limit=a.limit)
        if a.json:
            print(json.dumps([e.to_dict() for e in entries], indent=2, default=str))
        for e in [] if a.json else entries:
            print(f"{e.at:%Y-%m-%d %H:%M:%S}\t{e.actor}\t{e.kind} {e.name}\t{e.action}\t"
                  f"{e.old!s} -> {e.new!s}")
    return 0


def cmd_domain_rules(a) -> int:
    """Validate the rule files; exit 2 with `file, line N, field F: reason` when one is bad."""
    from backend.config import domain_rules

    d = Path(a.dir) if a.dir else Path(common._rs().settings.domain_config_dir or
                                       domain_rules.DEFAULT_DIR)
    rules = domain_rules.load(d)  # DomainConfigError -> one line, exit 2 (backend/cli/main.py)
    print(json.dumps({"directory": str(d), "ok": True, "counts": rules.counts()}, indent=2))
    return 0


def register(sub) -> None:
    p = sub.add_parser("prompts", help="system prompt versions: list, show, create, activate, diff")
    p.add_argument("--scope", default="chat", choices=["chat", "chatbots"],
                   help="the dashboard chat and /api/ask, or the chatbots (default: chat)")
    s = p.add_subparsers(dest="action", required=True)
    s.add_parser("list", help="versions, newest first; * marks the active one")
    x = s.add_parser("show", help="one version's house rules (default: the active one)")
    x.add_argument("version", type=int, nargs="?")
    x.add_argument("--full", action="store_true", help="the whole rules block, fixed rules first")
    x.add_argument("--json", action="store_true")
    x = s.add_parser("create", help="a new version from --text or --file (- for stdin)")
    x.add_argument("--text")
    x.add_argument("--file")
    x.add_argument("--note", help="why this version")
    x.add_argument("--activate", action="store_true", help="make it the active one at once")
    x = s.add_parser("activate", help="make a version the active one (0: the built-in default)")
    x.add_argument("version", type=int)
    x = s.add_parser("diff", help="unified diff of two versions")
    x.add_argument("a", type=int)
    x.add_argument("b", type=int)
    p.set_defaults(fn=cmd_prompts)

    p = sub.add_parser("runtime-settings",
                       help="the settings editable at run time: list, set, reset, audit")
    s = p.add_subparsers(dest="action", required=True)
    x = s.add_parser("list", help="value in effect and the environment's; * marks overrides")
    x.add_argument("--json", action="store_true")
    x = s.add_parser("set", help="override one setting (validated, audited)")
    x.add_argument("name")
    x.add_argument("value", help='e.g. 3000, 0.3, true, section, none')
    x = s.add_parser("reset", help="drop an override: the environment's value applies")
    x.add_argument("name")
    x = s.add_parser("audit", help="who changed which setting or prompt, when, old -> new")
    x.add_argument("--kind", choices=["setting", "prompt"])
    x.add_argument("--name", help="one setting (or prompt scope)")
    x.add_argument("--limit", type=int, default=100)
    x.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_runtime_settings)

    p = sub.add_parser("domain-rules", help="check the domain-rule YAML files (file, line, field)")
    p.add_argument("--dir", help="the folder to check (default: RAGSCOPE_DOMAIN_CONFIG_DIR or "
                                 "config/domain)")
    p.set_defaults(fn=cmd_domain_rules)
