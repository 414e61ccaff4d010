"""Values planted by the multi-format generator: fresh credentials and their look-alikes.

Every value is drawn from the ``random.Random`` it is given, so a seeded generator writes the same
bytes every time. Credentials are random (nobody's key); look-alikes are the things a reviewer
would not call a credential: placeholders, references, hashes, UUIDs under neutral names,
versions, documented example keys and names of things.

None of the values holds a quote, a backslash or a newline (except the PEM blocks), so a value
reads the same inside JSON, SQL, shell and source strings and its label is its exact text.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UPPER + LOWER + DIGITS
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"
PW_SYMBOLS = "!%^*-_=+?.~@#"

WORDS = ["maple", "harbor", "sunset", "river", "falcon", "copper", "violet", "winter", "summer", "autumn", "garden", "silver", "orange", "purple", "dragon", "tiger", "rocket", "planet", "ocean", "forest", "meadow", "canyon", "thunder", "shadow", "crystal", "pepper", "ginger", "marble", "velvet", "cobalt", "saturn", "phoenix", "willow", "cedar", "aspen", "lotus", "coral", "amber", "breeze", "comet", "ember", "frost", "glacier", "harvest", "island", "jasmine", "kettle", "lantern", "mango", "nectar", "orchid", "pebble", "quartz", "raven", "sierra", "tundra", "walnut", "zephyr", "anchor", "beacon", "castle", "delta", "eagle", "granite", "hazel", "indigo", "jungle", "lemon", "mosaic", "nimbus", "olive", "panda", "quill", "robin", "spruce", "tango", "valley", "yellow", "zebra", "bridge", "candle", "summit"]
USERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "oscar", "admin", "deploy", "svc_app", "ci_bot", "backup", "reporting", "app_user", "etl", "master", "root"]


def file_rng(seed: int, rel: str) -> random.Random:
    """The generator of one file's values: the seed and the file's path, nothing else."""
    digest = hashlib.sha256(f"{seed}\0{rel}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def draw(r: random.Random, alphabet: str, n: int) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def password(r: random.Random) -> str:
    while True:
        p = r.choice(UPPER + LOWER) + draw(r, ALNUM + PW_SYMBOLS, r.randint(11, 19))
        if any(c in PW_SYMBOLS for c in p) and any(c.isdigit() for c in p) and any(c.isupper() for c in p):
            return p


def human_password(r: random.Random) -> str:
    w = r.choice(WORDS).capitalize
    sym = r.choice("!@%*?.-_#")
    return r.choice([
        lambda: f"{w()}{sym}{r.choice(WORDS).capitalize()}{r.randint(10, 99)}",
        lambda: f"{w()}{r.randint(1970, 2025)}{sym}",
        lambda: "-".join(r.choice(WORDS) for _ in range(3)) + str(r.randint(1, 99)),
        lambda: f"{r.choice(WORDS)}{sym}{r.choice(WORDS)}{sym}{r.randint(1, 999)}",
    ])()


def api_key(r: random.Random) -> str:
    return r.choice([lambda: draw(r, HEX, r.choice([32, 40, 64])), lambda: draw(r, ALNUM, r.randint(24, 40)),
                     lambda: base64.urlsafe_b64encode(r.randbytes(r.choice([24, 32]))).decode().rstrip("=")])()


def activation_key(r: random.Random) -> str:
    groups = r.choice([5, 5, 4, 6])
    return "-".join(draw(r, UPPER + DIGITS, 5) for _ in range(groups))


def secret_uuid(r: random.Random) -> str:
    return str(uuid.UUID(bytes=r.randbytes(16), version=4))


def slack_bot(r: random.Random) -> str:
    return f"xoxb-{draw(r, DIGITS, 12)}-{draw(r, DIGITS, 13)}-{draw(r, ALNUM, 24)}"


def slack_app(r: random.Random) -> str:
    return f"xapp-1-A{draw(r, UPPER + DIGITS, 10)}-{draw(r, DIGITS, 13)}-{draw(r, HEX, 64)}"


def stripe_restricted(r: random.Random) -> str:
    return "rk_live_" + draw(r, ALNUM, r.choice([24, 99]))


def gitlab_runner(r: random.Random) -> str:
    return "glrt-" + draw(r, B64URL, 20)


def gitlab_oauth_secret(r: random.Random) -> str:
    return "gloas-" + draw(r, HEX, 64)


def newrelic(r: random.Random) -> str:
    return "NRJS-" + draw(r, HEX, 19)


def atlassian(r: random.Random) -> str:
    return "ATATT3xFfGF0" + draw(r, B64URL, 180) + "=" + draw(r, HEX.upper(), 8)


def posthog(r: random.Random) -> str:
    return "phr_" + draw(r, ALNUM, 43)


def jwt(r: random.Random) -> str:
    def enc(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")

    now = r.randint(1_600_000_000, 1_760_000_000)
    body = {"sub": str(r.randint(10_000, 99_999_999)), "iat": now, "exp": now + r.choice([900, 3600, 86400])}
    return f"{enc({'alg': 'HS256', 'typ': 'JWT'})}.{enc(body)}.{draw(r, B64URL, 43)}"


def aws_key_id(r: random.Random) -> str:
    return "AKIA" + draw(r, UPPER + "234567", 16)


def oauth_client_secret(r: random.Random) -> str:
    return r.choice([lambda: "GOCSPX-" + draw(r, B64URL, 28), lambda: draw(r, B64URL, 40)])()


def _der_int(b: bytes) -> bytes:
    if b[0] & 0x80:
        b = b"\x00" + b
    return b"\x02" + _der_len(len(b)) + b


def _der_len(n: int) -> bytes:
    if n < 128:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def private_key_block(r: random.Random) -> str:
    """An RSA private key block with PKCS#1 framing and random numbers: parses like a key, is nobody's."""
    sizes = [256, 3, 256, 128, 128, 128, 128, 128]
    body = b"\x02\x01\x00" + b"".join(_der_int(r.randbytes(n)) if n != 3 else _der_int(b"\x01\x00\x01") for n in sizes)
    der = b"\x30" + _der_len(len(body)) + body
    b64 = base64.b64encode(der).decode()
    lines = [b64[i:i + 64] for i in range(0, len(b64), 64)]
    return "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----"


# category -> generator; the category names the kind of value, the context says how it is written
SECRETS = {
    "password": password, "human_password": human_password, "api_key": api_key,
    "activation_key": activation_key, "secret_uuid": secret_uuid, "slack_bot_token": slack_bot,
    "slack_app_token": slack_app, "stripe_restricted_key": stripe_restricted,
    "gitlab_runner_token": gitlab_runner, "gitlab_oauth_secret": gitlab_oauth_secret,
    "newrelic_key": newrelic, "atlassian_token": atlassian, "posthog_key": posthog, "jwt": jwt,
    "aws_access_key_id": aws_key_id, "oauth_client_secret": oauth_client_secret, "private_key": private_key_block,
}
PASSWORDS = ("password", "human_password")
TOKENS = ("api_key", "slack_bot_token", "slack_app_token", "stripe_restricted_key", "gitlab_runner_token",
          "gitlab_oauth_secret", "newrelic_key", "atlassian_token", "posthog_key", "jwt", "oauth_client_secret",
          "secret_uuid")

# ---------------------------------------------------------------------------------------------
# look-alikes

PLACEHOLDERS = ["<password>", "<your-password>", "YOUR_API_KEY", "changeme", "********", "xxxxxxxxxxxxxxxx",
                "<token>", "your-secret-here", "REPLACE_ME", "example", "secret", "password", "TODO",
                "<insert key here>", "...", "dummy", "test123", "p@ssw0rd-placeholder", "${SECRET}"]
ENV_REFS = ["${DB_PASSWORD}", "$API_TOKEN", "${{ secrets.DEPLOY_TOKEN }}", "%(password)s", "{{ vault_password }}",
            "$(cat /run/secrets/db_password)", "${env:API_KEY}", "%DB_PASSWORD%", "${SLACK_BOT_TOKEN}",
            "{{ .Values.auth.password }}", "$MYSQL_ROOT_PASSWORD", "env.API_SECRET"]
EXAMPLE_KEYS = ["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "xoxb-not-a-real-token-this-will-not-work", "XXXXX-XXXXX-XXXXX-XXXXX-XXXXX",
                ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
                 ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"),
                "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "glpat-xxxxxxxxxxxxxxxxxxxx", "0123456789abcdef0123456789abcdef",
                "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "rk_live_XXXXXXXXXXXXXXXXXXXXXXXX"]
MODELS = ["SmolLM2-135M-Instruct", "Qwen2.5-Coder-1.5B-Instruct", "Llama-3.1-8B-Instruct", "Mistral-7B-v0.3",
          "Phi-3-mini-4k-instruct", "gemma-2-2b-it", "bert-base-uncased", "all-MiniLM-L6-v2", "t5-small"]
FAMILIES = ["Qwen2.5", "Llama-3.2", "SmolLM2", "gemma-2", "Phi-3.5", "Mistral", "OLMo-2", "granite-3.0"]
FONTS = ["Source Sans Pro", "Helvetica Neue", "JetBrains Mono", "Fira Code", "Noto Sans CJK JP", "DejaVuSansMono-Bold"]
PKGS = ["libssl1.1", "openjdk-17-jre-headless", "python3.11-venv", "postgresql-client-15", "nodejs", "libpq-dev"]


def placeholder(r: random.Random) -> str:
    return r.choice(PLACEHOLDERS)


def env_reference(r: random.Random) -> str:
    return r.choice(ENV_REFS)


def example_key(r: random.Random) -> str:
    return r.choice(EXAMPLE_KEYS)


def content_hash(r: random.Random) -> str:
    data = r.randbytes(32)
    return r.choice([hashlib.sha1(data).hexdigest(), hashlib.sha256(data).hexdigest(), hashlib.md5(data).hexdigest(),
                     "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode(),
                     "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()])


def neutral_uuid(r: random.Random) -> str:
    return str(uuid.UUID(bytes=r.randbytes(16), version=4))


def version(r: random.Random) -> str:
    major, minor, patch = r.randint(0, 12), r.randint(0, 40), r.randint(0, 30)
    return r.choice([f"{major}.{minor}.{patch}", f"v{major}.{minor}.{patch}-rc.{r.randint(1, 5)}",
                     f"{major}.{minor}.{patch}+build.{r.randint(100, 9999)}", f"{2000 + r.randint(15, 25)}.{r.randint(1, 12)}.{r.randint(1, 28)}"])


def name_of_thing(r: random.Random) -> str:
    return r.choice([lambda: r.choice(MODELS), lambda: r.choice(FONTS),
                     lambda: f"{r.choice(PKGS)}={version(r).lstrip('v')}",
                     lambda: f"{r.choice(FAMILIES)}-{r.choice(['7B', '1.5B', '135M', '360M'])}-{r.choice(['Instruct', 'Chat', 'Base'])}"])()


LOOKALIKES = {
    "placeholder": placeholder, "env_reference": env_reference, "documented_example_key": example_key,
    "hash": content_hash, "uuid_neutral": neutral_uuid, "version": version, "name_of_thing": name_of_thing,
}
# look-alikes that read as "the secret is elsewhere": they may sit under a secret's name
SECRET_NAMED_LOOKALIKES = ("placeholder", "env_reference", "documented_example_key")
