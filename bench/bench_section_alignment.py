"""Section pairing of version compare (backend/analysis/align.py): the similarity of the
pairs the assignment chose against that of every other pair, on the sample minutes v1/v2,
the privacy policy v1/v2, the minutes with a new "TOP 3" (every later item renumbered) and
the minutes with TOP 5 retitled and half rewritten. The gap between the lowest true pair and
the highest other pair is where `MIN_SIMILARITY` belongs.

    python bench/bench_section_alignment.py
"""
from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from backend.analysis.align import MIN_SIMILARITY, match_sections, similarity  # noqa: E402
from backend.analysis.compare import own_texts  # noqa: E402
from backend.analysis.source import source_from_file  # noqa: E402

MINUTES = "protokoll_werkausschuss_2024-03-12.txt"
POLICY = "datenschutzrichtlinie.docx"


def _source(text: str, name: str):
    path = Path(tempfile.mkdtemp()) / name
    path.write_text(text, encoding="utf-8")
    return source_from_file(path)


def _renumbered(v1: str) -> str:
    t = re.sub(r"^TOP (\d+):", lambda m: f"TOP {int(m[1]) + (int(m[1]) >= 3)}:", v1, flags=re.M)
    at = t.index("TOP 4: Wasserpreise", t.index("TOP 2: Genehmigung") + 200)
    return (t[:at] + "TOP 3: IT-Sicherheit\n\nHerr Brandt berichtet über die Umstellung der "
            "Fernwirktechnik auf verschlüsselte Verbindungen.\n\n" + t[at:])


def _rewritten(v1: str) -> str:
    t = v1.replace("TOP 5: Bericht zum Datenschutz", "TOP 5: Datenschutzbericht 2023")
    i = t.index("\n", t.rindex("TOP 5: Datenschutzbericht 2023")) + 1  # the body only
    j = t.index("TOP 6: Verschiedenes", i)
    words = t[i:j].split()
    return (t[:i] + "\n" + " ".join(words[:len(words) // 2]) + " Ergänzend wird über neue "
            "Löschfristen und die Schulung aller Mitarbeitenden berichtet.\n\n" + t[j:])


def measure(name: str, a, b) -> None:
    sa = [s for s in a.sections if s.label]
    sb = [s for s in b.sections if s.label]
    ta, tb = own_texts(a), own_texts(b)
    score = similarity(sa, sb, ta, tb)
    chosen = {(x.ordinal, y.ordinal) for x, y in match_sections(sa, sb, ta, tb)}
    pos = [score[i, j] for i, x in enumerate(sa) for j, y in enumerate(sb)
           if (x.ordinal, y.ordinal) in chosen]
    neg = [score[i, j] for i, x in enumerate(sa) for j, y in enumerate(sb)
           if (x.ordinal, y.ordinal) not in chosen]
    print(f"{name:34s} {len(sa):3d}/{len(sb):3d} sections  pairs {len(chosen):3d}  "
          f"lowest pair {min(pos):.2f}  other pairs: max {max(neg):.2f}, "
          f"p95 {np.percentile(neg, 95):.2f}")


def main() -> None:
    v1 = (ROOT / "data" / "samples" / MINUTES).read_text(encoding="utf-8")
    v2 = (ROOT / "data" / "samples_v2" / MINUTES).read_text(encoding="utf-8")
    print(f"MIN_SIMILARITY = {MIN_SIMILARITY}")
    measure("minutes v1/v2", _source(v1, MINUTES), _source(v2, MINUTES))
    measure("policy v1/v2", source_from_file(ROOT / "data" / "samples" / POLICY),
            source_from_file(ROOT / "data" / "samples_v2" / POLICY))
    measure("minutes, new TOP 3 (renumbered)", _source(v1, MINUTES),
            _source(_renumbered(v1), MINUTES))
    measure("minutes, TOP 5 retitled/rewritten", _source(v1, MINUTES),
            _source(_rewritten(v1), MINUTES))


if __name__ == "__main__":
    main()
