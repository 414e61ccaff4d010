"""Token formats vendors publish: a known prefix is strong evidence that a value is a credential.

Evidence, never the only way in: the detector still needs the value's surprise, and a value with
no known prefix is judged by its name and surprise alone (``acme_live_...`` is found like
``sk_live_...``). The list is of prefixes vendors document for their secret tokens, each with the
shortest random body after it that a real token has, so a bare prefix in prose is no token.
"""

from __future__ import annotations

import re

# (prefix, shortest body): body characters are letters, digits, `_`, `-` and inner dots (SendGrid's
# `SG.x.y`) and one inner `=` (Atlassian's `ATATT...=<checksum>`); a dot that ends a sentence is
# not part of the token.
_PREFIXES: tuple[tuple[str, int], ...] = (
    # Slack bot, user, app-level, workspace and refresh tokens.
    ("xoxb-", 20), ("xoxp-", 20), ("xoxa-", 20), ("xoxr-", 20), ("xoxs-", 20), ("xoxe-", 20), ("xapp-", 20),
    # Stripe secret and restricted keys, live and test.
    ("sk_live_", 16), ("rk_live_", 16), ("sk_test_", 16), ("rk_test_", 16), ("whsec_", 20),
    # GitHub.
    ("ghp_", 30), ("gho_", 30), ("ghu_", 30), ("ghs_", 30), ("ghr_", 30), ("github_pat_", 40),
    # GitLab personal, runner, OAuth application, pipeline trigger, deploy and feed tokens.
    ("glpat-", 16), ("glrt-", 16), ("gloas-", 16), ("glptt-", 16), ("gldt-", 16), ("glft-", 16), ("GR1348941", 16),
    # New Relic browser, user and ingest keys.
    ("NRJS-", 16), ("NRAK-", 20), ("NRII-", 20),
    # Atlassian API tokens; PostHog personal and project keys.
    ("ATATT", 40), ("phx_", 20), ("phc_", 20), ("phr_", 20),
    # Cloud and AI vendors.
    ("AIza", 30), ("ya29.", 30), ("sk-ant-", 30), ("sk-proj-", 30), ("hf_", 30), ("SG.", 40),
    ("dop_v1_", 40), ("doo_v1_", 40), ("shpat_", 30), ("shpss_", 30), ("npm_", 30), ("pypi-", 40),
    ("sq0atp-", 20), ("sq0csp-", 30), ("EAACEdEose0cBA", 20),
    # More AI vendors: OpenAI service-account and admin keys, Groq, Replicate, Perplexity, Tavily,
    # xAI, NVIDIA, OpenRouter, LangSmith.
    ("sk-svcacct-", 40), ("sk-admin-", 40), ("gsk_", 40), ("r8_", 30), ("pplx-", 40), ("tvly-", 24),
    ("xai-", 60), ("nvapi-", 50), ("sk-or-v1-", 60), ("lsv2_pt_", 40), ("lsv2_sk_", 40),
    # Shopify custom and private apps; GitLab CI build, incoming mail, agent, SCIM and feature-flag
    # tokens; Docker Hub, RubyGems and NuGet; JFrog.
    ("shpca_", 32), ("shppa_", 32), ("glcbt-", 20), ("glimt-", 20), ("glagent-", 20), ("glsoat-", 20),
    ("glffct-", 20), ("dckr_pat_", 20), ("rubygems_", 40), ("oy2", 40), ("AKCp", 60),
    # Secrets and deploy platforms: HashiCorp Vault, Doppler, Pulumi, 1Password service accounts,
    # Tailscale, Heroku, Fly.io, Netlify, Render, Supabase, PlanetScale, DigitalOcean refresh.
    ("hvs.", 24), ("hvb.", 24), ("hvr.", 24), ("dp.pt.", 40), ("dp.st.", 40), ("dp.sa.", 40), ("dp.ct.", 40),
    ("pul-", 40), ("ops_", 50), ("tskey-", 30), ("HRKU-", 30), ("fo1_", 40), ("nfp_", 30), ("rnd_", 24),
    ("sbp_", 40), ("pscale_tkn_", 32), ("pscale_pw_", 32), ("pscale_oauth_", 32), ("dor_v1_", 40),
    # Observability and work tools: Sentry, Grafana, Dynatrace, Buildkite, Postman, Linear, Notion,
    # Figma, Databricks; Brevo; Square production tokens; age's private keys.
    ("sntrys_", 60), ("sntryu_", 60), ("glc_", 30), ("glsa_", 32), ("dt0c01.", 60), ("bkua_", 30),
    ("PMAK-", 50), ("lin_api_", 30), ("ntn_", 40), ("figd_", 30), ("dapi", 32), ("xkeysib-", 60),
    ("EAAA", 50), ("AGE-SECRET-KEY-1", 50),
    # Hugging Face organisation tokens; Amazon MWS auth tokens (a UUID after the prefix);
    # Flutterwave secret keys, live and test.
    ("api_org_", 30), ("amzn.mws.", 36), ("FLWSECK-", 32), ("FLWSECK_TEST-", 32),
)
_PREFIX_RE = "|".join(re.escape(prefix) for prefix, _ in sorted(_PREFIXES, key=lambda p: -len(p[0])))
_MIN_BODY = dict(_PREFIXES)
_PREFIXED = re.compile(rf"(?<![A-Za-z0-9_\-])(?P<prefix>{_PREFIX_RE})(?P<body>[A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*(?:=[A-Za-z0-9]+)?)")
_AWS_KEY_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])")
# Formats with no prefix of their own: Terraform Cloud's API tokens (`<id>.atlasv1.<secret>`),
# Braintree's access tokens (`access_token$production$<merchant>$<secret>`), Mailchimp's API keys
# (32 hex digits, then `-us` and the number of the account's data centre).
_UNPREFIXED = re.compile(
    r"(?<![A-Za-z0-9])(?:(?P<atlasv1>[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,})"
    r"|(?P<braintree>access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-z]{32})"
    r"|(?P<mailchimp>[0-9a-f]{32}-us[0-9]{1,2}))(?![A-Za-z0-9_\-=])"
)
_JWT = re.compile(r"(?<![\w\-])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")
# Blockchain RPC providers take the project's key as a path segment of their URL (Infura's
# `https://mainnet.infura.io/v3/<key>` and `wss://.../ws/v3/<key>`, QuickNode's
# `https://<name>.quiknode.pro/<token>/`, GetBlock's `https://go.getblock.io/<token>/`): what ends
# right before a value of one. Infura's IPFS gateway (`ipfs.infura.io/ipfs/<cid>`) serves content ids.
_KEY_PATH_URL = re.compile(
    r"(?:https?|wss?)://(?:(?:[\w-]+\.)*infura\.io(?::\d+)?/(?:ws/)?v3/|(?:[\w-]+\.)+(?:quiknode\.pro|getblock\.io)(?::\d+)?/)\Z"
)
_URL_REACH = 200  # a provider URL's start is within this many characters of its key


def vendor_of(value: str) -> str | None:
    """The known format a whole value has (its prefix, ``"aws-key-id"`` or ``"jwt"``), or None.

    Example:
        >>> vendor_of("xoxb-2048571938-4417382913-Zq8xP1sV9kL2mN4b"), vendor_of("acme_live_Zq8xP1sV9kL2")
        ('xoxb-', None)
    """
    spans = list(find_vendor_tokens(value))
    if len(spans) == 1 and spans[0][0] == 0 and spans[0][1] == len(value):
        return spans[0][2]
    return None


def find_vendor_tokens(text: str) -> list[tuple[int, int, str]]:
    """Every vendor-shaped token in ``text`` as ``(start, end, format)``, wherever it sits
    (inside a URL, after a function name in Haskell, in a comment)."""
    found = []
    for match in _PREFIXED.finditer(text):
        if len(match.group("body")) >= _MIN_BODY[match.group("prefix")]:
            found.append((match.start(), match.end(), match.group("prefix")))
    found += [(m.start(), m.end(), "aws-key-id") for m in _AWS_KEY_ID.finditer(text)]
    found += [(m.start(), m.end(), "jwt") for m in _JWT.finditer(text)]
    found += [(m.start(), m.end(), m.lastgroup or "") for m in _UNPREFIXED.finditer(text)]
    return found


def in_vendor_key_path(text: str, start: int) -> bool:
    """True when the value at ``start`` is a path segment of a URL of a provider that takes its key
    in the path (:data:`_KEY_PATH_URL`): the provider's documented place for the key.

    Example:
        >>> line = "rpc = 'https://mainnet.infura.io/v3/" + "9f2c4d1e8b7a" * 2 + "5e3c6d0a'"
        >>> in_vendor_key_path(line, line.index("9f2c")), in_vendor_key_path(line.replace("infura", "example"), line.index("9f2c"))
        (True, False)
    """
    window = max(start - _URL_REACH, 0)
    line_start = text.rfind("\n", window, start) + 1 or window
    scheme = text.rfind("://", line_start, start)
    if scheme == -1:
        return False
    opening = scheme
    while opening > line_start and text[opening - 1].isalpha():
        opening -= 1
    return _KEY_PATH_URL.match(text, opening, start) is not None


# Stripe's publishable keys (`pk_live_...`, `pk_test_...`) identify an account to its checkout
# pages and are published in them: no secret.
_PUBLISHABLE_KEY = re.compile(r"pk_(?:live|test)_[A-Za-z0-9]{16,}")


def is_publishable_key(value: str) -> bool:
    """True for a Stripe publishable key, public by design.

    Example:
        >>> is_publishable_key("pk_live_j5krY8XTgIcDaHDb3YrsAfCl"), is_publishable_key("sk_live_j5krY8XTgIcDaHDb3YrsAfCl")
        (True, False)
    """
    return _PUBLISHABLE_KEY.fullmatch(value) is not None
