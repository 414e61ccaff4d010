"""The foreign sources, each pinned: a public repository at a fixed commit, read from a local mirror.

Order matters: an example whose text an earlier source already gave is dropped from the later one,
so that leaving one source out of tuning never leaves its examples in through another (Titus copies
most of Nosey Parker's rules; Kingfisher started from them too).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from .checkov import checkov_examples
from .custom_patterns import custom_pattern_examples
from .detect_secrets_tests import detect_secrets_examples
from .examples import Example
from .gitleaks import gitleaks_examples
from .horusec import horusec_examples
from .kics import kics_examples
from .mirror import Mirror, Pin
from .ripsecrets import ripsecrets_examples
from .rule_yaml import rule_examples
from .secretlint import secretlint_examples
from .semgrep_rules import semgrep_examples
from .sonar_text import sonar_text_examples
from .trivy import trivy_examples
from .whispers import whispers_examples


@dataclass(frozen=True, slots=True)
class Source:
    name: str
    pin: Pin
    what: str
    read: Callable[[Mirror, Counter[str]], Iterator[Example]]


SOURCES: tuple[Source, ...] = (
    Source("noseyparker", Pin("praetorian-inc/noseyparker", "2e6e7f36ce36619852532bbe698d8cb7a26d2da7"),
           "Nosey Parker rule examples and negative examples (YAML)",
           lambda m, c: rule_examples(m, source="noseyparker", folder="crates/noseyparker/data/default/builtin/rules",
                                      trust_categories=True, counts=c)),
    Source("titus", Pin("praetorian-inc/titus", "369d8dc4359a2d70629e0fe7732d3244a3315efc"),
           "Titus rule examples and negative examples (YAML; those not already in Nosey Parker)",
           lambda m, c: rule_examples(m, source="titus", folder="pkg/rule/rules", trust_categories=True, counts=c)),
    Source("kingfisher", Pin("mongodb/kingfisher", "ee7c0db3ef87575768f817820c24736249ffcdef"),
           "Kingfisher rule examples and negative examples (YAML)",
           lambda m, c: rule_examples(m, source="kingfisher", folder="data/rules", trust_categories=False, counts=c)),
    Source("gitleaks", Pin("gitleaks/gitleaks", "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b"),
           "Gitleaks rule true/false positives (string literals of cmd/generate/config/rules/*.go)",
           lambda m, c: gitleaks_examples(m, counts=c)),
    Source("detect-secrets", Pin("Yelp/detect-secrets", "01886c8a910c64595c47f186ca1ffc0b77fa5458"),
           "detect-secrets v1.5.0 plugin test tables (tests/plugins/*_test.py, read with ast)",
           lambda m, c: detect_secrets_examples(m, counts=c)),
    Source("secretlint", Pin("secretlint/secretlint", "18346ba31b8173d52060b971221ab38c1943def0"),
           "secretlint's snapshot tests: whole files and the findings its recommended preset reports on them",
           lambda m, c: secretlint_examples(m, counts=c)),
    Source("ripsecrets", Pin("sirwart/ripsecrets", "416e9d04d6ba8941fc3106bf986b6c8aa875767e"),
           "ripsecrets' test files: lines holding one secret each, files holding one, lines holding none",
           lambda m, c: ripsecrets_examples(m, counts=c)),
    Source("whispers", Pin("Skyscanner/whispers", "5832bf74dcb127128ba653ed87601c927124b5aa"),
           "whispers' test fixtures: whole config and code files, compliant and non-compliant parts",
           lambda m, c: whispers_examples(m, counts=c)),
    Source("trivy", Pin("aquasecurity/trivy", "dc3c56eed58ab21c7e08d26757c517bc946a86c5"),
           "trivy's secret-scanner tests: whole files, each secret placed by the masked line its test expects",
           lambda m, c: trivy_examples(m, counts=c)),
    Source("semgrep", Pin("semgrep/semgrep-rules", "157ae4706d7f54aa33647332f234dd68f30da195"),
           "semgrep-rules' secret-rule tests (generic/secrets/**): lines annotated ruleid/todoruleid and ok/todook",
           lambda m, c: semgrep_examples(m, counts=c)),
    Source("kics", Pin("DataDog/kics", "d91e3669233f883ffa89d3013a4af2874ab87b40"),
           "KICS' passwords-and-secrets query tests: infrastructure files and the lines each must, or must not, report",
           lambda m, c: kics_examples(m, counts=c)),
    Source("custom-patterns", Pin("advanced-security/secret-scanning-custom-patterns", "9b84660dfcad6cc3d0e2c40a1a5f61dd7edca4b9"),
           "GitHub's secret-scanning custom patterns: each pattern's expected matches in its folder's test files, and its test strings",
           lambda m, c: custom_pattern_examples(m, counts=c)),
    Source("sonar-text", Pin("SonarSource/sonar-text", "bb9c06ece15cbc4aad5dcd3ebb80b8ea31a9386c"),
           "SonarQube's secret rules (sonar-text): each rule's examples, with or without a secret, and the match it must report",
           lambda m, c: sonar_text_examples(m, counts=c)),
    Source("horusec", Pin("ZupIT/horusec", "873d4104a6aa89be8f86d93db8e416909d9add87"),
           "Horusec's rule tests: the vulnerable and safe samples of its secret rules, and the lines each must report",
           lambda m, c: horusec_examples(m, counts=c)),
    Source("checkov", Pin("bridgecrewio/checkov", "03d5fdad8d6154b1565799a7b1fb8070c158866f"),
           "Checkov's secret-scanner tests: whole fixture files, each value placed by what its test asserts",
           lambda m, c: checkov_examples(m, counts=c)),
)


def source_names() -> list[str]:
    return [s.name for s in SOURCES]


def collect(mirrors: Path, names: list[str], sources: tuple[Source, ...] = SOURCES
            ) -> tuple[list[Example], dict[str, dict[str, int]]]:
    """The examples of the named sources, de-duplicated across sources in their order, and counts per source."""
    seen: set[str] = set()
    out: list[Example] = []
    counts: dict[str, dict[str, int]] = {}
    for source in sources:
        if source.name not in names:
            continue
        c: Counter[str] = Counter()
        mirror = Mirror(mirrors, source.pin)
        for ex in source.read(mirror, c):
            key = " ".join(ex.text.split())
            if key in seen:
                c["duplicate_of_earlier_source"] += 1
                continue
            seen.add(key)
            out.append(ex)
        counts[source.name] = dict(sorted(c.items()))
    return out, counts
