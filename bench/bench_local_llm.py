"""Local model benchmark (issue 11, part 5): time to the first token and tokens per second of
the `local` provider (llama.cpp server from the xllamacpp wheel) on this machine's cores, with
realistic German prompts: the chat's own prompt (rules, three sources from the sample corpus,
question; about 700 tokens) for the German questions of eval/goldenset_sample.yaml.

Two measurements, both after one unmeasured warm-up question:

* **chat path** — `ChatService.ask_stream` with provider `local` (3 sources, temperature 0,
  max tokens 128), as the chat page and `ask` run it. First token after retrieval: `Retrieved`
  -> first `Delta` (prompt blocks, HTTP, prompt evaluation, first token). The fixed system
  rules are the same in every question, so llama.cpp reuses their KV cache, as in a running
  chat. Tokens/s: (output tokens - 1) / (last `Delta` - first `Delta`).
* **cold prompt** — the same prompts sent straight to the server with `cache_prompt: false`:
  the whole prompt is evaluated every time; the server's own timings (prompt tokens/s,
  generated tokens/s) are reported too.

Also the model load (server start to healthy). `--spot-check FILE` instead writes the answers
of the extractive answerer and of the local model side by side for 10 German and 10 English
goldenset questions (with their reference answers) for judging by hand.

    python bench/bench_local_llm.py                       # bundled SmolLM2, 2 threads
    python bench/bench_local_llm.py --record              # also write docs/benchmarks.md
    python bench/bench_local_llm.py --model my.gguf       # any GGUF instruct model
    python bench/bench_local_llm.py --spot-check answers.md
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from bench_chat import corpus, env  # noqa: E402  (sample corpus, machine description)

DOC_SECTION = "Chat: local model speed (issue 11)"
MAX_TOKENS = 128
CONTEXT = 3



def _everything():
    """The scope of a bench: every collection (backend/security/access.py)."""
    from backend.security.access import Scope

    return Scope.everything()

def gold(language: str, n: int) -> list:
    from eval.goldenset import load_goldenset

    qs = load_goldenset(ROOT / "eval" / "goldenset_sample.yaml").queries
    return [q for q in qs if q.language == language and q.reference_answer
            and "inventory" not in q.tags][:n]


def chat_run(svc, question: str, **settings) -> dict:
    from backend.security.access import Scope
    from backend.chat.service import Answered, Delta, Retrieved

    sess = svc.create_session("bench", **settings)
    t_ret = t_first = t_last = None
    msg = None
    for ev in svc.ask_stream(sess.uuid, question, scope=Scope.everything()):
        now = time.perf_counter()
        if isinstance(ev, Retrieved):
            t_ret = now
        elif isinstance(ev, Delta):
            t_first = t_first or now
            t_last = now
        elif isinstance(ev, Answered):
            msg = ev.message
    if msg.fallback:
        raise SystemExit(f"the local model failed: {msg.notice}")
    n = msg.tokens_output or 0
    return {"first_token_ms": (t_first - t_ret) * 1000, "prompt_tokens": msg.tokens_input,
            "output_tokens": n,
            "tokens_per_s": (n - 1) / (t_last - t_first) if n > 1 and t_last > t_first else None,
            "message": msg}


def chat_prompt(rs, question: str):
    """The chat's prompt for a question (the same blocks `ChatService` builds)."""
    from backend.chat.prompt import build_prompt
    from backend.llm.base import Evidence, GenerationRequest, openai_style_messages
    from backend.retrieval import RetrievalParams, Retriever

    hits = Retriever(rs).retrieve(question, RetrievalParams(k=CONTEXT),
                                  scope=_everything()).hits[:CONTEXT]
    ev = [Evidence(n, h.context[:rs.settings.chat_source_chars], h.document_title or h.filename,
                   h.breadcrumb, h.page, float(h.score)) for n, h in enumerate(hits, 1)]
    p = build_prompt(question, ev)
    return openai_style_messages(GenerationRequest("", p.system, p.messages))


def cold_run(server, messages: list[dict]) -> dict:
    import openai

    client = openai.OpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)
    t0 = time.perf_counter()
    t_first = None
    usage = timings = None
    stream = client.chat.completions.create(
        model=server.alias, messages=messages, stream=True, temperature=0.0,
        max_tokens=MAX_TOKENS, stream_options={"include_usage": True},
        extra_body={"cache_prompt": False})
    for chunk in stream:
        if any(c.delta and c.delta.content for c in chunk.choices or []):
            t_first = t_first or time.perf_counter()
        usage = chunk.usage or usage
        timings = (chunk.model_extra or {}).get("timings") or timings
    return {"first_token_ms": (t_first - t0) * 1000, "prompt_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens,
            "prompt_per_s": (timings or {}).get("prompt_per_second"),
            "tokens_per_s": (timings or {}).get("predicted_per_second")}


def med(rows: list[dict], key: str) -> float:
    v = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(v) if v else float("nan")


def speed(rs, settings, questions: list[str]) -> tuple[dict, list[dict], list[dict]]:
    from backend.chat.service import ChatService
    from backend.llm import local

    local.stop_shared_server()
    t0 = time.perf_counter()
    server = local.shared_server(settings)
    load_s = time.perf_counter() - t0
    svc = ChatService(rs)
    opts = dict(provider="local", context_limit=CONTEXT, temperature=0.0, max_tokens=MAX_TOKENS)
    chat_run(svc, questions[0], **opts)  # warm-up
    chat = [chat_run(svc, q, **opts) for q in questions]
    cold = [cold_run(server, chat_prompt(rs, q)) for q in questions]
    local.stop_shared_server()
    return {"load_s": load_s, "model": server.config.model, "threads": server.config.threads
            or local.available_threads()}, chat, cold


def table(chat: list[dict], cold: list[dict]) -> str:
    rows = ["| measurement | first token p50 ms | first token max ms | tokens/s p50 | "
            "prompt tokens/s p50 |", "|---|---:|---:|---:|---:|"]
    for label, r, prompt in (
            ("chat path (retrieval -> first token; system rules cached)", chat, "–"),
            ("cold prompt (request -> first token; nothing cached)", cold,
             f"{med(cold, 'prompt_per_s'):.0f}")):
        rows.append(f"| {label} | {med(r, 'first_token_ms'):.0f} | "
                    f"{max(x['first_token_ms'] for x in r):.0f} | "
                    f"{med(r, 'tokens_per_s'):.1f} | {prompt} |")
    return "\n".join(rows)


def markdown(info: dict, chat: list[dict], cold: list[dict], e: dict, cmd: str) -> str:
    size = info["model"].stat().st_size / 1e6
    prompt = (f"median {med(chat, 'prompt_tokens'):.0f} prompt tokens, range "
              f"{min(r['prompt_tokens'] for r in chat)}-{max(r['prompt_tokens'] for r in chat)}")
    return f"""## {DOC_SECTION}

Measured {e['date']} on {e['nproc']} cores ({e['cpu']}) with {info['threads']} model threads,
Python {e['python']}; load average (1/5/15 min) at the start {e['load']}: the machine was
shared with other work, so the figures can vary 2-5x. Reproduce: `{cmd}`.

Model `{info['model'].name}` ({size:.0f} MB) on llama.cpp's server from the xllamacpp wheel
(prebuilt, without CPU-native optimisations), started by ragscope in a child process; model load
to a healthy server: **{info['load_s']:.1f} s**. Prompts: the chat's own prompt (rules, {CONTEXT}
sources from the sample corpus, question) for the {len(chat)} German questions of the sample
goldenset ({prompt}); temperature 0, at most {MAX_TOKENS} answer tokens (median
{med(chat, 'output_tokens'):.0f} generated).

{table(chat, cold)}

Tokens/s: on the chat path measured at the client from the streamed deltas, on the cold prompts
as the server reports them. For comparison, the extractive answerer's first token after
retrieval takes about 2 ms (section "Chat: extractive answer latency").
"""


def record(md_text: str, path: Path) -> None:
    """Replace our own section in docs/benchmarks.md (or append it); others' sections stay."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    pat = re.compile(rf"^## {re.escape(DOC_SECTION)}\n.*?(?=^## |\Z)", re.M | re.S)
    body = md_text.rstrip() + "\n"
    new = (pat.sub(lambda _: body + "\n", old, count=1) if pat.search(old)
           else old.rstrip() + "\n\n" + body)
    tmp = path.with_suffix(".md.tmp-bench-local")
    tmp.write_text(new.rstrip() + "\n", encoding="utf-8")
    os.replace(tmp, path)


def spot_check(rs, out: Path) -> None:
    """Extractive and local answers side by side (default chat settings: 5 sources)."""
    from backend.chat.service import ChatService
    from backend.llm import local

    svc = ChatService(rs)
    lines = ["# Spot check: extractive vs local model", ""]
    for lang in ("de", "en"):
        for q in gold(lang, 10):
            ex = chat_run(svc, q.question, provider="extractive")["message"]
            lo = chat_run(svc, q.question, provider="local", temperature=0.0,
                          max_tokens=256)["message"]
            lines += [f"## {q.id} ({lang}): {q.question}", "",
                      f"**reference:** {q.reference_answer}", ""]
            for name, m in (("extractive", ex), ("local", lo)):
                c = m.citations
                lines += [f"**{name}** (cited {c.get('cited')}, invalid {c.get('invalid')}, "
                          f"{m.tokens_output} tokens, {(m.latency_ms or 0) / 1000:.1f} s):", "",
                          "> " + m.content.replace("\n", "\n> "), ""]
            print(f"{q.id} done", file=sys.stderr)
    local.stop_shared_server()
    out.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    import backend  # noqa: F401  (offline flags, thread settings)

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="where the sample corpus is ingested and kept (default: a temp dir)")
    ap.add_argument("--model", type=Path, help="GGUF file (default: the bundled SmolLM2)")
    ap.add_argument("--threads", type=int, default=2, help="model threads (default 2)")
    ap.add_argument("--questions", type=int, default=10, help="German questions measured")
    ap.add_argument("--spot-check", type=Path, metavar="FILE",
                    help="write extractive and local answers side by side instead")
    ap.add_argument("--record", action="store_true",
                    help=f"replace/append the section '{DOC_SECTION}' in docs/benchmarks.md")
    a = ap.parse_args(argv)
    from backend.config import Settings
    from backend.services.container import Ragscope

    data_dir = a.data_dir or Path(tempfile.mkdtemp(prefix="bench_local_")) / "var"
    overrides = {"local_threads": a.threads}
    if a.model:
        overrides["local_model_path"] = a.model
    os.environ.update({f"RAGSCOPE_{k.upper()}": str(v) for k, v in overrides.items()})
    corpus(data_dir).close()
    rs = Ragscope(Settings(data_dir=data_dir))
    if a.spot_check:
        spot_check(rs, a.spot_check)
        print(f"wrote {a.spot_check}", file=sys.stderr)
        return 0
    info, chat, cold = speed(rs, rs.settings, [q.question for q in gold("de", a.questions)])
    cmd = "python bench/bench_local_llm.py" + (f" --model {a.model}" if a.model else "") + (
        f" --threads {a.threads}" if a.threads != 2 else "") + " --record"
    text = markdown(info, chat, cold, env(), cmd)
    print(text)
    if a.record:
        record(text, ROOT / "docs" / "benchmarks.md")
        print(f"recorded in {ROOT / 'docs' / 'benchmarks.md'}", file=sys.stderr)
    rs.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
