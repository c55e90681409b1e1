"""The chat: sessions (UUID, title, per-session settings; stored, so they survive restarts;
backend/chat/sessions.py, which `ChatService` extends), and answering through the one
retrieval module with a streaming provider.

`ChatService(rs).ask_stream(uuid, question)` yields `Retrieved` (the numbered sources and the
trace id), `Delta`s of answer text, at most one `Fallback` (the provider failed: discard the
text so far, the extractive answer follows, marked as such) and finally `Answered` with the
stored message: citation check, format check, tokens in/out, cost, model and latency.

ACL: `ask`/`ask_stream` take the asker's `Scope` (backend/security/access.py) and retrieve only
within it (a session's collections outside it count as gone); `messages` takes the
reader's scope and blanks the sources of documents outside it (backend/chat/sources.py,
`scope_sources`), so stored answers cite nothing the reader may not read now."""
from __future__ import annotations

import time
from typing import Callable, Iterator

from sqlalchemy import func, select

from backend.security.access import Scope
from backend.answer import route as chat_route
from backend.chat import followup, followup_context, question_url
from backend.chat.profiles import ProfileService, apply_session_format
from backend.chat.answer import document_source, hit_source, inventory_text
from backend.chat.format_check import apply_profile
from backend.chat import prompt_versions
from backend.chat.prompt import build_prompt, check_citations
from backend.chat.sessions import ChatSessions
from backend.chat.types import (  # noqa: F401  (re-exported: the chat's public names)
    CONTEXT_LIMITS,
    SETTING_FIELDS,
    Answered,
    ChatInputError,
    Delta,
    Fallback,
    Generated,
    MessageInfo,
    Retrieved,
    SessionInfo,
    SessionSettings,
    make_title,
)
from backend.errors import ProviderUnavailable
from backend.answer.evidence.crosslingual import CrossLingual
from backend.answer.evidence.grounding import check_support
from backend.answer.evidence.scoring import MemoEncoder, assess
from backend.index.base import IndexFilter
from backend.llm import default_model, make_provider
from backend.llm.base import Evidence, GenerationRequest, Provider, StreamEnd, TextDelta
from backend.answer import confidence, named_document
from backend.answer.extractive import ExtractiveProvider
from backend.llm.pricing import pricing_table
from backend.llm.tokens import count_tokens
from backend.ingest.language import detect_language
from backend.retrieval import RetrievalParams, RetrievalResult, Retriever, TraceOwner
from backend.retrieval.query import parse_query
from backend.store import repo
from backend.store.models import Chunk, DocumentVersion

INVENTORY_K = 50  # documents an inventory answer may list
KNOWN_SAMPLE = 500  # chunks counted for a word's share of the corpus

_source = hit_source  # (name kept for callers of the earlier version)


class ChatService(ChatSessions):
    """Answers questions in the sessions of `ChatSessions` (backend/chat/sessions.py)."""

    def __init__(self, rs, provider_factory: Callable[[str], Provider] | None = None):
        super().__init__(rs)
        self._provider_factory = provider_factory
        self.cross = CrossLingual.from_settings(self.settings)

    def _known(self, word: str) -> float:
        """The share of indexed chunks that contain `word` (the keyword index, any collection;
        counted up to KNOWN_SAMPLE chunks, so on a large corpus common words all look
        equally common): 0.0 when the corpus lacks it (an abstention signal), and the
        rarity weight of the question's words in the extractive answerer."""
        try:
            idx = self.rs.keyword_index
            n = idx.count()
            if not n:
                return 0.0
            hits = idx.search(word, min(n, KNOWN_SAMPLE), IndexFilter(), highlight_limit=0)
            return len(hits) / min(n, KNOWN_SAMPLE)
        except Exception:  # noqa: BLE001 - an unavailable index: no abstention signal
            return 1.0

    def _known_in(self, collections: list[str]) -> Callable[[str], float]:
        """`_known` within the collections a session searches (all when none are chosen):
        a word that only other collections use is unknown to a question asked of these —
        a chatbot on one site abstains on what only another site's pages mention."""
        if not collections:
            return self._known
        with self.rs.store.session() as s:
            ids = repo.document_ids(s, repo.DocumentFilter(collections=list(collections)))
            n = s.scalar(select(func.count(Chunk.id)).join(
                DocumentVersion, DocumentVersion.id == Chunk.version_id).where(
                DocumentVersion.is_active.is_(True), DocumentVersion.status == "indexed",
                Chunk.document_id.in_(ids))) if ids else 0

        def known(word: str) -> float:
            if not n:
                return 0.0
            try:
                hits = self.rs.keyword_index.search(word, min(n, KNOWN_SAMPLE),
                                                    IndexFilter(document_ids=ids),
                                                    highlight_limit=0)
                return len(hits) / min(n, KNOWN_SAMPLE)
            except Exception:  # noqa: BLE001 - an unavailable index: no abstention signal
                return 1.0
        return known

    def _provider(self, name: str, encoder, known: Callable[[str], float] | None = None
                  ) -> Provider:
        """The session's provider; the built-in extractive one gets the embedding model."""
        if self._provider_factory is not None:
            return self._provider_factory(name)
        if name == "extractive":
            return ExtractiveProvider(encoder, known=known or self._known, cross=self.cross)
        return make_provider(self.settings, name)

    def validate_question(self, question: str | None) -> str:
        q = (question or "").strip()
        if not q:
            raise ChatInputError("The message is empty: type a question.")
        limit = self.settings.chat_max_message_chars
        if len(q) >= limit:
            raise ChatInputError(f"The message has {len(q):,} characters; messages must be "
                                 f"shorter than {limit:,} characters.")
        return q

    def ask(self, uuid: str, question: str, *, scope: Scope,
            user: str | None = None) -> Answered:
        last = None
        for event in self.ask_stream(uuid, question, scope=scope, user=user):
            last = event
        assert isinstance(last, Answered)
        return last

    def ask_stream(self, uuid: str, question: str, *, scope: Scope, user: str | None = None,
                   question_urls: bool = True,
                   ) -> Iterator[Retrieved | Delta | Fallback | Answered]:
        """`question_urls=False` (a chatbot that fetches nothing): a URL in the question is
        not fetched; the notice says so."""
        q = self.validate_question(question)
        sess = self.get_session(uuid, user=user)
        cfg = sess.settings
        # ---- analysis route (issue 12; backend/answer/route.py) ----------------------
        routed = chat_route.route(self, sess, q, scope)  # only documents in scope
        if routed.answer is not None:
            yield from chat_route.respond(self, sess, q, routed)
            return
        # -----------------------------------------------------------------------------------
        owner = TraceOwner.user(sess.user) if sess.user else TraceOwner.system("cli")
        # ---- follow-ups: the retrieval query from the conversation (chat/followup.py) ----
        turns = followup_context.conversation(
            self.rs, sess.uuid, followup_context.context_lines(self.settings, cfg.context_mode))
        rw = followup_context.for_question(self, sess, q, scope, turns)
        gen = None
        page = question_url.carried(turns) if rw.followup else None  # the page asked about
        for event in self.answer_stream(q, cfg, scope=scope, owner=owner, rewrite=rw,
                                        question_urls=question_urls, carried_page=page,
                                        history=[(t.question, t.answer) for t in turns],
                                        prompt_scope="chatbots" if sess.chatbot_id else "chat"):
            if isinstance(event, Generated):
                gen = event
            else:
                yield event
        assert gen is not None
        chat_route.note_trace(self.rs, gen.trace_id, routed)  # issue 12: why retrieval
        followup_context.note_trace(self.rs, gen.trace_id, rw)
        yield self.store_turn(sess.uuid, q, cfg, content=gen.text, sources=gen.sources,
                              citations=gen.citations, format_check=gen.format_check,
                              provider=gen.provider, model=gen.model,
                              tokens_input=gen.tokens_input, tokens_output=gen.tokens_output,
                              tokens_counted_locally=gen.tokens_counted_locally,
                              cost_usd=gen.cost_usd, cost_label=gen.cost_label,
                              latency_ms=gen.latency_ms, first_token_ms=gen.first_token_ms,
                              retrieval_ms=gen.retrieval_ms, trace_id=gen.trace_id,
                              fallback=gen.fallback, notice=gen.notice,
                              rewrite=rw.to_dict() if rw.followup else None)

    def answer_stream(self, q: str, cfg: SessionSettings, *, scope: Scope,
                      history: list[tuple[str, str]] | None = None,
                      owner: TraceOwner | None = None,
                      rewrite: followup.Rewrite | None = None, question_urls: bool = True,
                      carried_page: question_url.QuestionPage | None = None,
                      prompt_scope: str = "chat"
                      ) -> Iterator[Retrieved | Delta | Fallback | Generated]:
        """Answer `q` with the settings `cfg` without storing anything (the benchmark uses
        this; `ask_stream` stores the result). Inventory questions get the document list of
        the retrieval module's inventory mode; when the evidence is too weak
        (backend/answer/evidence/scoring.py) the answer says nothing was found and no model is asked;
        generated answers get a per-sentence support check. Retrieval stays within `scope`
        (`Scope.everything()` for the evaluation). The retrieval trace belongs to `owner`
        (default: the system owner "eval"). `rewrite`: a follow-up's query (retrieved with,
        and what the evidence is scored against) and the document it is pinned to; the
        prompt keeps the question as asked, after the conversation. `carried_page`: the
        page the previous question fetched, which a follow-up without its own URL reuses
        (backend/chat/question_url.py `carried`). `prompt_scope`: whose active system prompt
        version applies (chat or chatbots; chat/prompt_versions.py)."""
        owner = owner or TraceOwner.system("eval")
        t0 = time.perf_counter()
        web = question_url.for_question(self.settings, q,  # a URL in the question (issue 26)
                                        allowed=question_urls) or carried_page
        asked, q = q, (rewrite.query if rewrite is not None else q)
        q = question_url.without_url(q, web) if web is not None else q
        pinned = rewrite.document_ids if rewrite is not None else None
        result, trace_id, notes = self._retrieve(q, cfg, owner, scope, pinned)
        notes += [web.notice()] if web is not None and web.notice() else []
        retrieval_ms = _ms(t0)
        if result is not None and result.mode == "inventory":
            yield from self._inventory(q, result, trace_id, notes, t0, retrieval_ms)
            return
        encoder = MemoEncoder(self.rs.embedder)
        known = self._known_in(cfg.collections)
        evidence, sources = self._evidence(result, cfg)
        assessment = None
        if rewrite is not None and rewrite.broader and evidence and not (
                web is not None and web.reused):  # a follow-up on a page: the page answers
            # a follow-up whose own words find no evidence in the document in focus:
            # retried with the previous question's whole subject (chat/followup.py)
            assessment = assess(q, evidence, encoder, known=known, cross=self.cross)
            if assessment.abstain:
                q = rewrite.use_broader()
                result, trace_id, notes = self._retrieve(q, cfg, owner, scope, pinned)
                evidence, sources = self._evidence(result, cfg)
                assessment = None
            retrieval_ms = _ms(t0)
        if pinned is None and web is None and evidence and not question_url.find_url(q):
            # a document the question names by a name: searched within it (answer/named_document.py)
            assessment, second = named_document.search_within(
                self, q, cfg, owner, scope, evidence, sources, assessment,
                lambda q_, ev: assess(q_, ev, encoder, known=known, cross=self.cross))
            if second is not None:
                result, trace_id, evidence, sources, note = second
                notes.append(note)
                retrieval_ms = _ms(t0)
        if web is not None and web.used:
            evidence, sources = question_url.with_page(web, q, evidence, sources, encoder)
            assessment, known = None, question_url.known_with(web, known)
        question_url.note_trace(self.rs, trace_id, web)
        yield Retrieved(sources, trace_id, retrieval_ms)
        t_ret = time.perf_counter()  # first token is timed from here: gate + generation
        if assessment is None and evidence:
            assessment = assess(q, evidence, encoder, known=known, cross=self.cross)
        author = ProfileService(self.rs).get(cfg.profile_id)  # style rules (issue 26)
        prompt = build_prompt(asked, evidence, system_prompt=cfg.system_prompt,
                              history=history or [], style_rules=author.style_rules_text(
                                  detect_language(asked) or "en") if author else "",
                              house_rules=prompt_versions.active_text(self.rs.store,
                                                                      prompt_scope))
        request = GenerationRequest(
            model=cfg.model or default_model(self.settings, cfg.provider), system=prompt.system,
            messages=prompt.messages, question=q, evidence=evidence,
            temperature=cfg.temperature, max_tokens=cfg.max_tokens)
        provider, fallback = self._provider(cfg.provider, encoder, known), False
        # The extractive answerer abstains below the measured threshold; a generative model
        # (which may summarise what no single sentence matches) is not asked only when the
        # documents clearly cannot answer (Assessment.no_evidence).
        abstain = assessment is not None and (
            assessment.abstain if provider.name == "extractive" else assessment.no_evidence)
        if abstain and provider.name != "extractive":
            notes.append("No model was asked: the documents hold no evidence for this "
                         "question.")
            provider = ExtractiveProvider(encoder, known=known, decline=True, cross=self.cross)
        gen = _Generation(t_ret)
        try:
            yield from gen.run(provider, request)
        except ProviderUnavailable as e:
            fallback = True
            notes.append(f"{e}. Showing the extractive answer instead (no model involved).")
            yield Fallback(notes[-1])
            provider = ExtractiveProvider(encoder, known=known, cross=self.cross)
            gen = _Generation(t_ret)
            yield from gen.run(provider, request)
        latency_ms = _ms(t0)

        text, fmt = apply_session_format(self.rs, cfg, gen.text)
        citations = check_citations(text, len(sources))
        if assessment is not None:
            citations["evidence_score"] = round(assessment.best, 4)
            citations["abstained"] = abstain
        if abstain:  # "nothing found" cites nothing by design
            citations["uncited_sentences"] = []
            citations["ok"] = not citations["invalid"]
        citations.update(confidence.fields(assessment, sources, asked, abstain or not evidence))
        if provider.name != "extractive" and not abstain:
            support = check_support(text, evidence, encoder, assessment.question.language
                                    if assessment else "")
            citations["support"] = [x.to_dict() for x in support]
            citations["unsupported_sentences"] = [x.sentence for x in support
                                                  if not x.supported]
            citations["ok"] = citations["ok"] and not citations["unsupported_sentences"]
        for src in sources:
            src["cited"] = src["n"] in citations["cited"]
        end = gen.end or StreamEnd(model=request.model)
        model = "extractive" if provider.name == "extractive" else end.model or request.model
        tin, tout = end.input_tokens, end.output_tokens
        counted = tin is None or tout is None
        if tin is None:
            tin = count_tokens(prompt.render() if provider.name != "extractive" else
                               "\n".join([q] + [e.text for e in evidence]))
        if tout is None:
            tout = count_tokens(text)
        cost = pricing_table(self.settings.pricing_file).cost(
            provider.name, model, tin, tout, provider_is_local=provider.local)
        yield Generated(text, sources, evidence, citations, fmt, provider.name, model, tin,
                        tout, counted, cost.usd, cost.label, latency_ms, gen.first_token_ms,
                        retrieval_ms, trace_id, fallback, " ".join(notes) or None,
                        "abstained" if abstain else "answer")

    def _evidence(self, result: RetrievalResult | None, cfg: SessionSettings
                  ) -> tuple[list[Evidence], list[dict]]:
        """The first `context_limit` hits as the answerer's evidence and as sources."""
        hits = result.hits[:cfg.context_limit] if result is not None else []
        chars = self.settings.chat_source_chars
        evidence = [Evidence(n, h.context[:chars], h.document_title or h.filename,
                             h.breadcrumb, h.page, float(h.score))
                    for n, h in enumerate(hits, 1)]
        return evidence, [hit_source(n, h) for n, h in enumerate(hits, 1)]

    def _inventory(self, q: str, result: RetrievalResult, trace_id: str | None,
                   notes: list[str], t0: float, retrieval_ms: float) -> Iterator:
        """'Welche Dokumente gibt es?': the listed documents are the sources, each cited."""
        best = {}
        for h in result.hits:
            best.setdefault(h.document_id, h)
        sources = [document_source(n, d, best.get(d.document_id))
                   for n, d in enumerate(result.documents, 1)]
        yield Retrieved(sources, trace_id, retrieval_ms)
        topic = next((st.params.get("topic") for st in result.trace.stages
                      if st.name == "inventory"), "") or ""
        t1 = time.perf_counter()
        text = inventory_text(q, topic, sources)
        first = None
        for piece in text.splitlines(keepends=True):
            first = _ms(t1) if first is None else first
            yield Delta(piece)
        citations = check_citations(text, len(sources))
        citations["abstained"] = not sources
        citations.update(confidence.fields(None, sources, q, not sources, analysis=True))
        for src in sources:
            src["cited"] = src["n"] in citations["cited"]
        _, fmt = apply_profile(text, "markdown")
        tokens = count_tokens(text)
        yield Generated(text, sources, [], citations, fmt, "extractive", "inventory",
                        count_tokens(q), tokens, True, 0.0, "local", _ms(t0), first,
                        retrieval_ms, trace_id, False, " ".join(notes) or None,
                        "inventory" if sources else "abstained")

    def _retrieve(self, q: str, cfg: SessionSettings, owner: TraceOwner, scope: Scope,
                  document_ids: list[int] | None = None
                  ) -> tuple[RetrievalResult | None, str | None, list[str]]:
        """The retrieval result, its trace id and notes, retrieved within `scope`.
        Collections deleted since the session chose them, or no longer readable, are left
        out (and named); when none is left there is nothing to search. The chat uses the
        retrieval module whole: inventory mode (document lists with a relevance cut-off),
        small-to-big context, the minimum score, and uploads before crawled pages on score ties (settings `chat_expand`, `chat_min_score`,
        `chat_inventory_cutoff`). The trace belongs to `owner` (the session's user, who sees
        the conversation; a system owner such as "cli" or "eval" otherwise)."""
        notes, collections = [], cfg.collections or None
        if collections:
            with self.rs.store.session() as s:
                known = {c.name for c, _ in repo.list_collections(s) if scope.can_read(c.name)}
            gone = [c for c in collections if c not in known]
            collections = [c for c in collections if c in known]
            if gone:
                notes.append(f"Collection(s) no longer there: {', '.join(gone)}.")
            if not collections:
                return None, None, notes
        st = self.settings
        k = max(cfg.context_limit, INVENTORY_K) if parse_query(q).inventory else cfg.context_limit
        result = Retriever(self.rs).retrieve(q, RetrievalParams(
            policy=cfg.policy, k=k, collections=collections, persist_trace=True,
            expand=st.chat_expand, expand_chars=st.chat_source_chars,
            min_score=st.chat_min_score, inventory_cutoff=st.chat_inventory_cutoff,
            prefer_uploads=True, document_ids=document_ids, tags=cfg.tags or None),
            scope=scope, owner=owner)
        return result, result.trace.id, notes


class _Generation:
    """Collects one provider stream: text, time to first token (from `t0`, else from the
    start of the stream), the StreamEnd."""

    def __init__(self, t0: float | None = None):
        self.parts: list[str] = []
        self.first_token_ms: float | None = None
        self.end = None
        self.t0 = t0

    @property
    def text(self) -> str:
        return "".join(self.parts).strip()

    def run(self, provider: Provider, request: GenerationRequest) -> Iterator[Delta]:
        t0 = self.t0 if self.t0 is not None else time.perf_counter()
        for event in provider.stream(request):
            if isinstance(event, TextDelta):
                if self.first_token_ms is None:
                    self.first_token_ms = _ms(t0)
                self.parts.append(event.text)
                yield Delta(event.text)
            else:
                self.end = event


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)

