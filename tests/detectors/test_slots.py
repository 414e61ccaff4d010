from __future__ import annotations

import pytest

from smscan.detectors.slots import find_slots


def values(text: str) -> list[tuple[str, str, str]]:
    return [(text[s.start : s.end], s.key, s.where) for s in find_slots(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('API_KEY = "q8Zt3kPx0wLm9Rv2"', [("q8Zt3kPx0wLm9Rv2", "API_KEY", "string")]),
        ("password: hunter2x", [("hunter2x", "password", "assignment")]),
        ("export TOKEN=abc123def", [("abc123def", "TOKEN", "assignment")]),
        ('client = Client(api_token="t0k3n")', [("t0k3n", "api_token", "string")]),
        ("const c = { secret: 'zz9' };", [("zz9", "secret", "string")]),
        ('x = os.environ.get("DB_PASS", "s3cr3t!")', [("s3cr3t!", "DB_PASS", "string")]),
        ('const k = process.env.KEY || "fallback1";', [("process.env.KEY", "k", "assignment"), ("fallback1", "KEY", "string")]),
        ('url = "postgres://app:pa55word@db:5432/x"', [("pa55word", "url", "url-userinfo")]),
        ('h = {"Authorization": "Bearer abc.def-ghi"}', [("abc.def-ghi", "Bearer", "header")]),
        ("curl -u bot:Zx9!pw https://x.test", [("Zx9!pw", "password", "argument")]),
        ("tool --api-key K3yV4lue run", [("K3yV4lue", "api-key", "argument")]),
        ('curl -s -H "X-Api-Key: K3y%V4lue" x', [("K3y%V4lue", "X-Api-Key", "argument")]),
        ('<add key="botToken" value="q1w2e3r4" />', [("botToken", "key", "string"), ("q1w2e3r4", "botToken", "string")]),
        ("<password>Zq8xP1</password>", [("Zq8xP1", "password", "assignment")]),
        ('conn = "Server=db;Password=Pw0rd9;"', [("db", "Server", "string"), ("Pw0rd9", "Password", "string")]),
    ],
)
def test_values_and_their_names(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert values(text) == expected


def test_a_private_key_block_is_one_slot_that_swallows_its_lines() -> None:
    text = 'k = """-----BEGIN RSA PRIVATE KEY-----\nMIIEow==\n-----END RSA PRIVATE KEY-----"""\n'

    (slot,) = find_slots(text)

    assert text[slot.start : slot.end].startswith("-----BEGIN RSA PRIVATE KEY-----")
    assert text[slot.start : slot.end].endswith("-----END RSA PRIVATE KEY-----")
    assert slot.where == "pem"


def test_names_are_not_values() -> None:
    # A mapping key and the first argument of a lookup are names.
    assert values('d = {"password": x}') == []
    assert values('v = os.environ["API_TOKEN"]') == []


@pytest.mark.parametrize(
    "text",
    ['if username == "admin" and password == "123P4ssW0rd@@":\n    login()\n',
     "elif creds.secret != 'Xk9mQ2pL7vB4':\n    deny()\n"],
)
def test_a_string_compared_at_the_end_of_a_python_condition_is_a_value(text: str) -> None:
    # The colon after it ends the `if`; a string after `==` or `!=` is compared, never a mapping's key.
    assert [(key, where) for _, key, where in values(text)][-1:] in (
        [("password", "string")], [("creds.secret", "string")])


def test_long_tokens_in_comments_and_prose() -> None:
    text = "# rotated: Zq8xP1sV9kL2mN4bT7wR3yU6 (old)\n"

    assert values(text) == [("Zq8xP1sV9kL2mN4bT7wR3yU6", "", "token")]


def test_offsets_are_document_offsets_on_later_lines() -> None:
    text = "a = 1\nb = 2\ntoken = 'Zq8xP1sV9'\n"

    (slot,) = [s for s in find_slots(text) if s.key == "token"]

    assert text[slot.start : slot.end] == "Zq8xP1sV9"


def test_a_certificate_swallows_its_lines_as_public_material() -> None:
    body = "MIIBszCCAVmgAwIBAgIUZq8xP1sV9kL2mN4bT7wRAbCdEfGh"
    text = f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n"

    (slot,) = find_slots(text)

    assert slot.where == "public-block"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see https://example.test/deps?package_id=UGFja2FnZS01NzA4OTExNg for more\n",
         ("UGFja2FnZS01NzA4OTExNg", "package_id", "assignment")),
        ("[![deps](https://example.test/deps?package_id=UGFja2FnZS01NzA4OTExNg)](https://x)\n",
         ("UGFja2FnZS01NzA4OTExNg", "package_id", "token")),
    ],
)
def test_a_name_value_run_in_prose_is_the_value(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in values(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # `mNf=` is the start of a random value, not a name: the whole literal is the value.
        ('PASSWORD = os.environ.get("PASSWORD", "mNf=V78uQ2xL")', [("mNf=V78uQ2xL", "PASSWORD", "string")]),
        ('dsn = "Password=V78uQ2xL"', [("V78uQ2xL", "Password", "string")]),
    ],
)
def test_a_lone_name_value_pair_needs_a_name_with_a_word(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert values(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"environment": ["POSTGRES_PASSWORD=Zq8xP1sV9kL2"]}', [("Zq8xP1sV9kL2", "POSTGRES_PASSWORD", "string")]),
        ('readers = ["Qx7vbbpos3Lk", "a1"]', [("Qx7vbbpos3Lk", "readers", "string"), ("a1", "readers", "string")]),
        ('args=["--token", "Zq8xP1sV9kL2"]', [("--token", "args", "string"), ("Zq8xP1sV9kL2", "args", "string")]),
    ],
)
def test_a_lists_first_item_is_a_value_like_the_rest(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert values(text) == expected


@pytest.mark.parametrize("text", ['x = os.environ["POSTGRES_PASSWORD"]', 'y = cfg()["api_token"]', 'z = rows[0]["secret_key"]'])
def test_a_subscript_names_what_it_looks_up(text: str) -> None:
    assert values(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('password, region = "Zq8xP1sV9kL2", "eu-west-1"', [("Zq8xP1sV9kL2", "password", "string"), ("eu-west-1", "region", "string")]),
        ('\tuser, pass := "deploy", "Zq8xP1sV9kL2"', [("deploy", "user", "string"), ("Zq8xP1sV9kL2", "pass", "string")]),
        ('\tconst apiKey, host string = "Zq8xP1sV9kL2", "db.internal"',
         [("Zq8xP1sV9kL2", "apiKey", "string"), ("db.internal", "host", "string")]),
    ],
)
def test_a_tuple_assignment_binds_each_value_to_the_name_in_its_place(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert values(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<env>DB_PASSWORD=Zq8xP1sV9kL2</env>", [("Zq8xP1sV9kL2", "DB_PASSWORD", "assignment")]),
        ("<conn>Server=db;User ID=sa;Password=Zq8xP1sV9kL2</conn>",
         [("db", "Server", "assignment"), ("sa", "ID", "assignment"), ("Zq8xP1sV9kL2", "Password", "assignment")]),
        ("<password>  Zq8xP1sV9kL2  </password>", [("Zq8xP1sV9kL2", "password", "assignment")]),
    ],
)
def test_an_elements_text_is_a_literal_and_its_closing_tag_ends_a_value(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert values(text) == expected
