"""The generated corpus of bench/bench_eval.py, in BEIR layout: English technical reports of
a utility. Every document has a subject, an aspect, a site, a year, a responsible person and
a unique case number; a third of the documents get 1-2 follow-up reports on the same subject,
aspect and site. Queries name a target document by paraphrase (synonyms for aspect and
subject), by keywords, or by case number; the target is relevant with grade 2, its follow-ups
with grade 1. Deterministic (seeded)."""
from __future__ import annotations

import json
import random
from pathlib import Path

SEED = 7
GEN_VERSION = 1
SUBJECTS = [("pumping station", "pump house"), ("customer portal", "self-service website"),
            ("billing system", "invoicing software"), ("data gateway", "integration server"),
            ("water tower", "elevated reservoir"), ("district heating network", "heat grid"),
            ("metering service", "meter reading service"), ("identity provider", "login service"),
            ("release pipeline", "deployment pipeline"), ("archive server", "records store"),
            ("SCADA interface", "control system link"), ("load balancer", "traffic distributor"),
            ("sewage plant", "wastewater treatment works"), ("backup cluster", "backup system"),
            ("fleet of service vans", "company vehicles"), ("call centre", "customer hotline"),
            ("substation", "transformer station"), ("solar park", "photovoltaic plant"),
            ("mail server", "e-mail system"), ("network firewall", "perimeter firewall")]
ASPECTS = [("maintenance schedule", "upkeep plan"), ("cost estimate", "budget forecast"),
           ("failure analysis", "root cause investigation"), ("security audit", "security review"),
           ("capacity plan", "sizing forecast"), ("migration plan", "move to the new platform"),
           ("staff training", "employee instruction"), ("emergency drill", "disaster exercise"),
           ("energy report", "power consumption summary"), ("tender", "call for bids"),
           ("service level agreement", "availability commitment"),
           ("data retention rule", "records keeping period"),
           ("access review", "permission check"), ("inspection report", "site survey")]
SITES = ["Birkenau", "Eichberg", "Lindenfeld", "Hochstadt", "Mühlbach", "Seewalde", "Rotenhain",
         "Altdorf", "Bergheim", "Kirchweiler", "Talhausen", "Steinbrück", "Wiesental",
         "Ostermoor", "Falkenau", "Grünwald", "Neuweiler", "Buchenried", "Hasselt", "Morsbach"]
PEOPLE = ["Anna Fischer", "Ben Okafor", "Clara Lindqvist", "David Novak", "Eva Brennan",
          "Felix Castillo", "Greta Haddad", "Hugo Moreau", "Ida Takahashi", "Jonas Petrov",
          "Karin Weber", "Luis Ortega", "Mara Svensson", "Nils Keller", "Olga Ivanova",
          "Paul Schneider", "Rosa Almeida", "Simon Berger", "Tara Singh", "Uwe Hartmann"]
VERBS = ["reviewed", "approved", "postponed", "rejected", "revised", "audited", "extended"]
FILLER = [
    "The {s} at {site} was {verb} by the operations team in {month} {year}.",
    "{person} noted that the {a} for the {s} needs another {n} working days.",
    "Costs of {money} EUR were approved for the {a}; the board will check them in {month}.",
    "If the {s} fails, the on-call engineer switches to the reserve within {n} minutes.",
    "The {a} covers {n} locations and is repeated every {m} months.",
    "Measured availability of the {s} was {pct} percent over the last quarter.",
    "During the last {a}, {n} of {k} checks passed and the rest were {verb}.",
    "Questions about the {a} go to {person}, who coordinates with the site team at {site}.",
]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def _fill(tpl: str, rng: random.Random, d: dict) -> str:
    vals = {"verb": rng.choice(VERBS), "month": rng.choice(MONTHS), "n": rng.randint(2, 90),
            "m": rng.randint(2, 24), "k": rng.randint(91, 300),
            "pct": f"{rng.uniform(95, 99.99):.2f}", "money": f"{rng.randint(2, 900) * 1000:,}",
            **d}
    return tpl.format(**vals)


def generate(n_docs: int, n_queries: int, seed: int = SEED):
    """(corpus [{_id, title, text}], queries [{_id, text}], qrels [(qid, did, grade)])."""
    rng = random.Random(seed)
    corpus, base = [], []
    i = 0
    while len(corpus) < n_docs:
        si, ai = rng.randrange(len(SUBJECTS)), rng.randrange(len(ASPECTS))
        d = {"s": SUBJECTS[si][0], "a": ASPECTS[ai][0], "site": rng.choice(SITES),
             "year": rng.randint(2016, 2025), "person": rng.choice(PEOPLE),
             "case": f"{rng.choice('ABCDEFGHKMNPRSTW')}{rng.choice('KLMNRSTX')}-{10000 + i}"}
        follow = rng.random() < 1 / 3
        group = [d] + [dict(d, year=d["year"] + k + 1, case=f"{d['case']}/{k + 1}")
                       for k in range(rng.randint(1, 2) if follow else 0)]
        ids = []
        for k, g in enumerate(group):
            if len(corpus) >= n_docs:
                break
            did = f"doc{len(corpus):06d}"
            kind = "Follow-up report" if k else "Report"
            title = f"{kind}: {g['a']} for the {g['s']} at {g['site']} ({g['year']})"
            lead = (f"Case {g['case']}. {g['person']} prepared the {g['a']} for the {g['s']} "
                    f"at {g['site']} in {g['year']}.")
            other = {"s": SUBJECTS[rng.randrange(len(SUBJECTS))][0],
                     "a": ASPECTS[rng.randrange(len(ASPECTS))][0]}
            body = [_fill(t, rng, {**g, **(other if j % 3 == 2 else {})})
                    for j, t in enumerate(rng.sample(FILLER, rng.randint(4, 7)))]
            corpus.append({"_id": did, "title": title, "text": " ".join([lead] + body)})
            ids.append(did)
        base.append((d, si, ai, ids))
        i += 1
    qrng = random.Random(seed + 1)
    queries, qrels = [], []
    for qn, (d, si, ai, ids) in enumerate(qrng.sample(base, min(n_queries, len(base)))):
        style = qn % 3
        if style == 0:  # paraphrase
            text = (f"What is planned for the {ASPECTS[ai][1]} of the {SUBJECTS[si][1]} "
                    f"in {d['site']}?")
        elif style == 1:  # keywords
            text = f"{d['person']} {d['a']} {d['s']} {d['site']} {d['year']}"
        else:  # exact identifier
            text = f"Which report has case number {d['case']}?"
        qid = f"q{qn:04d}"
        queries.append({"_id": qid, "text": text})
        qrels += [(qid, did, 2 if k == 0 else 1) for k, did in enumerate(ids)]
    return corpus, queries, qrels


def write_beir(folder: Path, n_docs: int, n_queries: int, seed: int = SEED) -> Path:
    corpus, queries, qrels = generate(n_docs, n_queries, seed)
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as f:
        for o in corpus:
            f.write(json.dumps(o) + "\n")
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as f:
        for o in queries:
            f.write(json.dumps(o) + "\n")
    with open(folder / "qrels" / "test.tsv", "w", encoding="utf-8", newline="") as f:
        f.write("query-id\tcorpus-id\tscore\r\n")
        for q, d, g in qrels:
            f.write(f"{q}\t{d}\t{g}\r\n")
    return folder
