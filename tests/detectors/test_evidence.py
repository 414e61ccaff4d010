"""The small evidence modules of the credential detector, one job each."""

from __future__ import annotations

import pytest

from smscan.detectors.bindings import binding_before
from smscan.detectors.command_forms import docker_env_value, glued_passwords
from smscan.detectors.credential import CredentialRule, judge_slot
from smscan.detectors.passphrases import is_passphrase
from smscan.detectors.prose_labels import label_values, table_values
from smscan.detectors.query_strings import query_values
from smscan.detectors.secret_names import name_class
from smscan.detectors.slots import find_slots
from smscan.detectors.value_shapes import is_der_public_key, is_name_of_thing, is_other_identifier
from smscan.detectors.vendor_prefixes import find_vendor_tokens, vendor_of

KEY = "Zq8xP1sV9kL2mN4bT7wR"
UUID = "123e4567-e89b-42d3-a456-426614174000"


def judged(text: str) -> list[tuple[str, float | None]]:
    rule = CredentialRule()
    return [(text[s.start : s.end], judge_slot(text, s, rule)) for s in find_slots(text)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("--super-secret_token", "secret"), ("PW", "secret"), ("API Secret", "secret"),
        ("Activation key", "secret"), ("SECRET KEY", "secret"), ("license_key", "secret"),
        ("CURLOPT_PASSWORD", "secret"), ("X-Amz-Credential", "secret"), ("sort key", "neutral"),
        ("channelId", "identifier"), ("Theme", "neutral"), ("gitHead", "identifier"), ("head_oid", "identifier"),
        ("headToken", "secret"),
    ],
)
def test_the_secret_name_vocabulary(name: str, expected: str) -> None:
    assert name_class(name) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("xoxb-2048571938-4417382913-" + KEY, "xoxb-"), ("glrt-" + KEY, "glrt-"), ("gloas-" + KEY, "gloas-"),
        ("NRJS-" + KEY, "NRJS-"), ("ATATT3xFfGF0" + KEY * 2, "ATATT"), ("phr_" + KEY, "phr_"),
        ("rk_live_" + KEY, "rk_live_"), ("AKIAQZLRMEUDXJIWGOC2", "aws-key-id"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3QifQ.c2lnbmF0dXJlLXZhbHVl", "jwt"),
        ("acme_live_" + KEY, None),  # unknown formats are judged by name and surprise alone
        ("glrt-short", None),  # a prefix without a token's body
        ("prefix xoxb-" + KEY, None),  # a vendor token inside a longer value is not the value
        ("hvs." + KEY * 2, "hvs."), ("dp.pt." + KEY * 3, "dp.pt."), ("sntryu_" + KEY * 4, "sntryu_"),
        ("PMAK-65a1f0d2e3b4c5d6e7f80912-" + KEY * 2, "PMAK-"), ("AGE-SECRET-KEY-1" + KEY.upper() * 3, "AGE-SECRET-KEY-1"),
        ("r8_" + KEY * 2, "r8_"), ("dapi" + "9f86d081884c7d659a2feaa0c55ad015", "dapi"),
        ("hvs.short", None), ("r8_" + KEY, None),  # bodies shorter than the vendor's
        ("api_org_" + KEY + "Hb7Vq2Mx9LpR", "api_org_"), ("amzn.mws.00a19111-8311-4311-9391-5e211cbfcd5c", "amzn.mws."),
        ("FLWSECK_TEST-9f86d081884c7d659a2feaa0c55ad015-X", "FLWSECK_TEST-"),
        ("b319dfb09d3034.atlasv1." + KEY * 4, "atlasv1"), ("q8zt0atlasv1." + KEY * 4, None),  # an id of 14 first
        ("access_token$production$k2x9q7m4w8v3n5b1$9f86d081884c7d659a2feaa0c55ad015", "braintree"),
        ("9f86d081884c7d659a2feaa0c55ad015-us21", "mailchimp"), ("9f86d081884c7d659a2feaa0c55ad015-eu21", None),
    ],
)
def test_vendor_formats(value: str, expected: str | None) -> None:
    assert vendor_of(value) == expected


def test_a_vendor_token_is_found_wherever_it_sits() -> None:
    text = f'socket = connectWith "xapp-1-A0B1C2-{KEY}" -- bot\nhttps://x.test/cb#xoxp-11-22-{KEY}.'
    assert [text[a:b] for a, b, _ in find_vendor_tokens(text)] == [f"xapp-1-A0B1C2-{KEY}", f"xoxp-11-22-{KEY}"]


def test_vendor_evidence_adds_to_a_secret_name_and_stands_in_for_a_missing_one() -> None:
    rule = CredentialRule()
    assert judged(f'token = "glrt-{KEY}"  # runner\n') == [(f"glrt-{KEY}", rule.secret_bonus + rule.vendor_bonus)]
    assert judged(f'mk "glrt-{KEY}"\n') == [(f"glrt-{KEY}", rule.vendor_bonus)]
    assert judged('token = "glrt-xxxxxxxxxxxxxxxxxxxx"\n') == [("glrt-xxxxxxxxxxxxxxxxxxxx", None)]


def test_a_uuid_is_a_credential_under_a_secret_name_only() -> None:
    rule = CredentialRule()
    assert judged(f"run --super-secret_token {UUID}\n") == [(UUID, rule.secret_bonus)]
    assert [evidence for _, evidence in judged(f"run --request-id {UUID}\nchannel = '{UUID}'\n")] == [None, None]


@pytest.mark.parametrize(
    "value",
    ["SmolLM2-135M-Instruct", "HuggingFaceTB/SmolLM2-135M-Instruct", "Qwen2.5-Coder-7B", "Noto-Sans-CJK", "all-MiniLM-L6-v2"],
)
def test_names_of_things_are_not_credentials_under_a_neutral_name(value: str) -> None:
    assert is_name_of_thing(value)
    assert judged(f'model = "{value}"\n') == [(value, None)]


def test_a_random_value_with_dashes_is_no_name_of_a_thing() -> None:
    assert not is_name_of_thing("Zq8x-P1sV-9kL2")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('SECRET := getenv("SESSION_SIGNER", "v")', "SESSION_SIGNER getenv SECRET"),
        ('x = os.environ.get("DB_PASS", "v")', "DB_PASS"),
        ('curl_easy_setopt(curl, CURLOPT_PASSWORD, "v");', "CURLOPT_PASSWORD"),
        ("CREATE USER 'r'@'%' IDENTIFIED BY 'v';", "password"),
        ("CREATE USER etl WITH PASSWORD 'v';", "password"),
        ('#define API_KEY "v"', "API_KEY"),
        ('pub const API_KEY: &str = "v";', "API_KEY"),
        ('client.setPassword("v");', "setPassword"),
        ('val password: String = "v"', "password"),
    ],
)
def test_bindings_in_each_syntax(line: str, expected: str) -> None:
    assert binding_before(line, line.rindex('"v"') if '"v"' in line else line.rindex("'v'")) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- password: Q8zt3kPx0w", [("Q8zt3kPx0w", "password")]),
        ("Legacy panel: ID:master,PW:Xk9mPq2Lz", [("Xk9mPq2Lz", "PW")]),
        ("API Secret:q8Zt3kPx0wLm9Rv2", [("q8Zt3kPx0wLm9Rv2", "API Secret")]),
        ("Activation key : ABCDE-12FGH-XY9ZK", [("ABCDE-12FGH-XY9ZK", "Activation key")]),
        ("| password | Q8zt3kPx0w |", [("Q8zt3kPx0w", "password")]),
        ("The new password is Q8zt3kPx0w.", [("Q8zt3kPx0w", "The new password")]),
        ("timeout: 30, user: admin", []),
        ("token = get_token(user)", []),
    ],
)
def test_labels_in_prose(line: str, expected: list[tuple[str, str]]) -> None:
    assert [(line[a:b], label) for a, b, label in label_values(line)] == expected


def test_a_table_column_named_password_holds_passwords() -> None:
    lines = ["| service | user | Password |", "|---|---|---|", "| grafana | admin | Q8zt3kPx0w |", "", "| a |"]
    assert [(i, lines[i][a:b], c) for i, a, b, c in table_values(lines)] == [(2, "Q8zt3kPx0w", "Password")]


def test_query_parameters_named_secret_and_an_aws_credential_scope() -> None:
    line = f"https://b.s3.amazonaws.com/r.csv?X-Amz-Credential=AKIAQZLRMEUDXJIWGOC2%2F20240611%2Fus-east-1&page=2&token={KEY}"
    assert [(line[a:b], n) for a, b, n in query_values(line)] == [("AKIAQZLRMEUDXJIWGOC2", "X-Amz-Credential"), (KEY, "token")]


def test_command_line_and_dockerfile_forms() -> None:
    line = "mysqldump -u backup -pQ8zt3kPx0w shop > shop.sql"
    assert [line[a:b] for a, b in glued_passwords(line)] == ["Q8zt3kPx0w"]
    assert list(glued_passwords("gcc -pthread -o x x.c")) == []
    line = f"ENV SERVICE_TOKEN {KEY}"
    assert docker_env_value(line) == (line.index(KEY), len(line), "SERVICE_TOKEN")


def test_a_connection_string_with_spaced_keys_is_split_into_its_pairs() -> None:
    text = 'c = "Data Source=sql01; User ID=shop; Password=Q8zt3kPx0w;"\n'
    assert [(text[s.start : s.end], s.key) for s in find_slots(text)] == [
        ("sql01", "Data Source"), ("shop", "User ID"), ("Q8zt3kPx0w", "Password"),
    ]


def test_only_path_segments_of_a_url_can_be_tokens() -> None:
    text = f"see https://hooks.example.com/services/T0AB12CD3/{KEY}a1b2 and https://nexus.internal/service/rest/v1/status\n"
    # A webhook's URL names its path token (`named_tokens.webhook_name`); any other URL's stays bare.
    assert [(text[s.start : s.end], s.where) for s in find_slots(text)] == [(f"{KEY}a1b2", "label")]
    text = f"see https://api.example.com/v1/token/T0AB12CD3/{KEY}a1b2 and https://nexus.internal/service/rest/v1/status\n"
    assert [(text[s.start : s.end], s.where) for s in find_slots(text)] == [(f"{KEY}a1b2", "token")]
    # A path under no word that says secret names a document or a record: an id, no slot.
    text = f"see https://docs.example.com/services/T0AB12CD3/{KEY}a1b2/view\n"
    assert find_slots(text) == []


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("login frank password Xy9kPq2Lz", [("Xy9kPq2Lz", "password")]),
        ("The api key for the staging box is Q8zt3kPx0w (rotate it)", [("Q8zt3kPx0w", "The api key for the staging box")]),
        ("Use Q8zt3kPx0w as the Password when asked", [("Q8zt3kPx0w", "the Password when")]),
        ("let password = &password[..password.len().min(72)];", []),
    ],
)
def test_labels_in_sentences(line: str, expected: list[tuple[str, str]]) -> None:
    # Other words of the sentence may be read as values too; they are judged out as plain words.
    found = [(line[a:b], label) for a, b, label in label_values(line)]
    assert [pair for pair in found if any(c.isdigit() for c in pair[0])] == expected


@pytest.mark.parametrize(
    ("text", "value", "key"),
    [
        (f"terraform apply -var client_secret={KEY} -auto-approve\n", KEY, "client_secret"),
        (f"curl_setopt($ch, CURLOPT_USERPWD, 'ci_bot:{KEY}');\n", KEY, "CURLOPT_USERPWD"),
        (f'req.SetBasicAuth("admin", "{KEY}")\n', KEY, "password"),  # by position: login_calls
        (f'let smtp_password = env::var("SMTP").unwrap_or_else(|_| "{KEY}".to_string());\n', KEY, "smtp_password"),
    ],
)
def test_more_bindings_name_the_secret(text: str, value: str, key: str) -> None:
    (slot,) = [s for s in find_slots(text) if text[s.start : s.end] == value]
    assert slot.key == key
    assert judge_slot(text, slot, CredentialRule()) == CredentialRule().secret_bonus


@pytest.mark.parametrize(
    "value",
    ["xoxb-not-a-real-token-this-will-not-work", "p@ssw0rd-placeholder", "0123456789abcdef0123456789abcdef"],
)
def test_values_that_say_they_are_not_real_are_placeholders(value: str) -> None:
    assert judged(f'password = "{value}"\n') == [(value, None)]


def test_an_email_shape_with_a_digit_in_its_domain_is_a_password() -> None:
    assert judged("ALTER ROLE svc WITH ENCRYPTED PASSWORD 'hj@pmAszz.Jdsjp0WaoV';\n") == [
        ("hj@pmAszz.Jdsjp0WaoV", CredentialRule().secret_bonus)
    ]
    assert judged("password = 'ops@example.com'\n") == [("ops@example.com", None)]


def test_a_notebook_schema_is_not_a_notebook() -> None:
    from smscan.detectors.notebooks import is_notebook

    schema = '{"properties": {"cells": {"type": "array"}, "nbformat": {"type": "integer"}}}'
    assert not is_notebook(schema)
    assert is_notebook('{"cells": [], "nbformat": 4, "metadata": {}}')


def test_an_sql_insert_binds_each_value_to_its_column() -> None:
    line = f"INSERT INTO api_credentials (owner, client_secret) VALUES ('ca,rol', '{KEY}');"
    assert binding_before(line, line.index(KEY) - 1) == "client_secret"
    assert binding_before(line, line.index("'ca,rol'")) == "owner"


def test_an_ssh_public_key_is_no_credential() -> None:
    body = "AAAAB3NzaC1yc2EAAAADAQABAAABAQC7Zq8xP1sV9kL2mN4bT7wR"
    assert [evidence for _, evidence in judged(f"ssh-rsa {body} deploy@ci\n") if _ == body] == [None]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (".cache/smscan/models/SmolLM2-135M-Instruct/tokenizer.json", True),
        ("SmolLM2-135M-Instruct.Q4_1.gguf", True),
        ("gpt-4o-mini", True),
        ("lantern-phoenix-glacier83", False),  # a passphrase: words and a number, no mark of a name
        ("Summer-2024", False),
        ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYzZx", False),
    ],
)
def test_paths_and_files_named_after_things_and_passphrases(value: str, expected: bool) -> None:
    assert is_name_of_thing(value) is expected


def test_a_block_of_base64_lines_of_one_width_is_data() -> None:
    text = "picture: !!binary |\n R0lGODlhDAAMAIQAAP//9/X\n 17unp5WZmZgAAAOfn515eXv\n Pz7Y6OjuDg4J+fn5OTk6enp\n 56enmleECcgggoBADs=\nnext: 1\n"
    assert [(s.where, judge_slot(text, s, CredentialRule())) for s in find_slots(text) if s.where != "assignment"] == [
        ("public-block", None)
    ]


@pytest.mark.parametrize(
    ("text", "value", "key"),
    [
        (f'static const char api_secret[] = "{KEY}";\n', KEY, "api_secret"),
        ('let req = client.get(url).basic_auth("frank", Some("GNq^1Q7l6Y.D6e"));\n', "GNq^1Q7l6Y.D6e", "frank basic_auth req"),
        (f'RUN echo "//registry.npmjs.org/:_authToken={KEY}" > /root/.npmrc\n', KEY, "authToken"),
        ("user: ivan  pass: violet.lotus.396\n", "violet.lotus.396", "pass"),
        ("For local testing the Root password is set to Q8zt3kPx0w, see the wiki.\n", "Q8zt3kPx0w", "the Root password"),
    ],
)
def test_secret_values_in_more_places_and_shapes(text: str, value: str, key: str) -> None:
    (slot,) = [s for s in find_slots(text) if text[s.start : s.end] == value]
    assert key in slot.key
    rule = CredentialRule()
    # A word-joined passphrase (`violet.lotus.396`) also has the evidence of its shape.
    shape = rule.vendor_bonus if is_passphrase(value) else 0.0
    assert judge_slot(text, slot, rule) == rule.secret_bonus + shape


@pytest.mark.parametrize(
    "value",
    ["requests>=2.31", "lodash^4.17.21", "typescript~5.4.2", "notes.v2.txt", "a.tar.gz", "IMG_0042.JPG", "report.Rmd",
     "Makefile.PL", "clip.MP4", "archive.7z", "src/*.py", "*.Rmd"],
)
def test_requirements_and_file_names_stay_identifiers(value: str) -> None:
    assert judged(f'dependency = "{value}"\n') == [(value, None)]


@pytest.mark.parametrize(
    "text, value",
    [
        # a dot before a few mixed-case characters is no file extension
        ("sqlalchemy.url = postgresql://frank:Rz7dK-wA2.9Hdc@localhost/app\n", "Rz7dK-wA2.9Hdc"),
        ("REDIS_URL=redis://:SUU7ANse09.3tWx@cache.internal:6379/0\n", "SUU7ANse09.3tWx"),
        ('db_password = "vY2OicQg.lmqZ"\n', "vY2OicQg.lmqZ"),
        ('"connectionString": "Server=db;User Id=ivan;Password=bGh2Yxct2bqpqff.4QR;",\n', "bGh2Yxct2bqpqff.4QR"),
        # a random password ending in `*.` and a mixed-case tail is no glob
        ("DATABASE_URL=postgres://svc_app:Vo8abc*.abcdE@db.internal:5432/app\n", "Vo8abc*.abcdE"),
        # `=` inside the value of a secret option is part of the password, not a `name=value` pair
        ("# mysql --user=alice --password=Sn=9kLq2xPw\n", "Sn=9kLq2xPw"),
        # `~7` is no npm range (those hold a dot)
        ("    password: Km4xsZfY3kg~7\n", "Km4xsZfY3kg~7"),
        # a licence key whose letters spell `MY` is no `my-...` placeholder
        ("serial.key = 3MY8N-WGW78-8MUBP-Z9QHW-B172B\n", "3MY8N-WGW78-8MUBP-Z9QHW-B172B"),
    ],
)
def test_random_values_shaped_like_file_names_ranges_or_placeholders_are_judged(text: str, value: str) -> None:
    assert [slot for slot in judged(text) if slot[1] is not None] == [(value, CredentialRule().secret_bonus)]


@pytest.mark.parametrize(
    "value", ["224_617.445_991_228", "1_000_000", "6.626e-34", "Default_0|JPype", "clean,compile-main,compile-8"]
)
def test_numbers_with_separators_and_lists_of_names_are_no_keys(value: str) -> None:
    assert judged(f'setting = "{value}"\n') == [(value, None)]


def test_a_password_with_a_bar_under_a_secret_name_is_still_judged() -> None:
    assert judged('password = "fJ4q|Wz8RkT2mLx9"\n') == [("fJ4q|Wz8RkT2mLx9", CredentialRule().secret_bonus)]


@pytest.mark.parametrize("value", ["&pyo3::Bound<", "bcrypt::Version::TwoA", "std::string", "JPMatch::_none"])
def test_paths_in_code_are_no_keys(value: str) -> None:
    assert judged(f"    fn init(m: {value}) {{\n") in ([(value, None)], [])
    assert not is_other_identifier("Zq8x::P1sV9kL2mN")  # one `::` inside random characters is no path


def test_a_password_glued_to_p_keeps_an_equals_sign() -> None:
    # `-pWc2=...` is no option `-pWc2` with a value: the whole glued value is the password
    assert judged("mysql -u etl -pWc2=yUqT8kLm3xZ -h localhost\n") == [
        ("etl", None), ("Wc2=yUqT8kLm3xZ", CredentialRule().secret_bonus), ("localhost", None)
    ]




def test_an_atlassian_token_keeps_its_checksum() -> None:
    token = "ATATT3xFfGF0" + KEY * 3 + "=FF9A0982"
    assert vendor_of(token) == "ATATT"


@pytest.mark.parametrize(
    "text",
    [
        "Admin console: https://judy:jMH3WyojU.Kr@registry.example.io/admin\n",  # a URL's password
        "ID:deploy,PW:Lu4-VCD.ofnXn\n",
        "curl_easy_setopt(curl, CURLOPT_PASSWORD, \"sI-ZqZ01rp2IN0.IC\");\n",
        "REDIS_URL=redis://:Vo8qrs*.tuvwA@cache:6379/0\n",  # a glob's `*.ext` ending by chance
    ],
)
def test_a_password_holding_a_dot_is_no_file_or_host_name_where_a_password_is_written(text: str) -> None:
    rule = CredentialRule()
    [(value, evidence)] = [(v, e) for v, e in judged(text) if e is not None]
    assert "." in value and evidence == rule.secret_bonus


@pytest.mark.parametrize(
    "text",
    [
        "password_file: db-pass.txt\n",  # where a password is kept, not the password
        "ssl_key = server.key\n",  # a key's name: files are what such names usually hold
        "database_url: postgres://app:${DB_PASSWORD}@db.internal/app\n",
        "password: env.API_SECRET\n",  # a reference, not a file name
        "PASSWORD=*.local\n",
    ],
)
def test_file_names_and_references_under_secret_names_stay_dropped(text: str) -> None:
    assert all(evidence is None for _, evidence in judged(text))


@pytest.mark.parametrize("value", ["black>=19.3b0", "ipykernel>=6.0.0rc1", "twine>=1.11.0.post1", "sphinx>=7.3.dev2"])
def test_a_requirement_on_a_pre_post_or_dev_release_stays_an_identifier(value: str) -> None:
    assert judged(f"Requires-Dist: {value}\n") == [(value, None)]


def test_a_glued_mysql_password_holding_an_equals_sign_stays_whole() -> None:
    # `-plyE=...` is no option `-plyE` with a value: the glued password keeps every character.
    text = "mysql -h 10.20.0.15 -u grace -plyE=Dw7xQ2pZk app < schema.sql\n"
    assert [(v, e) for v, e in judged(text) if e is not None] == [("lyE=Dw7xQ2pZk", CredentialRule().secret_bonus)]


# Shapes read off secretlint's snapshot tests (measured blind first, then tuned on).
def test_a_url_whose_password_the_service_fixes_carries_the_token_as_its_user() -> None:
    token = "111da111qqqq309bqq562159952c2c2a11111a1"
    text = f'"pkg": "git+https://{token}:x-oauth-basic@github.com/acme/pkg.git#v1.0.0"\n'
    assert judged(text) == [(token, CredentialRule().secret_bonus)]
    templated = judged('url = f"https://{token}:x-oauth-basic@github.com/acme/pkg.git"\n')
    assert [value for value, evidence in templated if evidence is not None] == []


def test_a_url_password_runs_to_the_last_at_sign_before_the_host() -> None:
    text = 'MONGO = "mongodb+srv://app:myR3alP@ssw0rd@cluster0.example.net/db"\n'  # smscan: ignore
    assert judged(text) == [("myR3alP@ssw0rd", CredentialRule().secret_bonus)]  # smscan: ignore


def test_words_between_a_urls_user_and_its_at_sign_are_its_password() -> None:
    # GitHub's custom patterns (blind, session 23): a word there is the password, never a setting.
    text = "DB_URI = 'mysql://python:HelloSecretScanning@myhost1:1111/db'\n"  # smscan: ignore
    assert judged(text) == [("HelloSecretScanning", CredentialRule().secret_bonus)]
    # outside a URL a word under a password's name stays a setting's value
    assert [evidence for _, evidence in judged('password_source = "HelloSecretScanning"\n')] in ([], [None])


def test_an_armoured_block_of_encoded_text_is_no_private_key() -> None:
    stand_in = "-----BEGIN PRIVATE KEY-----\nYWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo=\n-----END PRIVATE KEY-----\n"
    assert [evidence for _, evidence in judged(stand_in)] == [None]
    der = "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEA\n-----END PRIVATE KEY-----\n"
    assert [evidence for _, evidence in judged(der)] == [CredentialRule().secret_bonus]


def test_a_public_key_name_says_its_value_is_public() -> None:
    text = 'DOTENV_PUBLIC_KEY="037cfbfc90234cfdab7eb54050566293789efaa1a35dc420749662db400dc9c4b2"\n'
    assert name_class("DOTENV_PUBLIC_KEY") == "identifier" and judged(text) == [(text[19:-2], None)]


# Shapes read off SonarSource's secret rules (sonar-text, session 24; measured blind first, then tuned on).
def test_the_default_of_a_secret_variables_expansion_is_its_value() -> None:
    compose = f"    environment:\n      POSTGRES_PASSWORD: ${{POSTGRES_PASSWORD:-{KEY}}}\n"
    assert judged(compose) == [(KEY, CredentialRule().secret_bonus)]
    url = f"DSN: postgres://app:${{DB_PASSWORD:-{KEY}}}@db:5432/app\n"
    assert judged(url) == [(KEY, CredentialRule().secret_bonus)]
    quoted = f'password: "${{DB_PASSWORD:-{KEY}}}"\n'  # the string is the expansion; its default the value
    assert judged(quoted) == [(KEY, CredentialRule().secret_bonus)]
    # a user's or a port's default is no secret; an expansion without a default is a reference
    assert [v for v, e in judged("USER: ${POSTGRES_USER:-w3badmin}\nPORT: ${PORT:-5432}\n") if e is not None] == []
    assert [v for v, e in judged("DSN: postgres://app:${DB_PASSWORD}@db/app\n") if e is not None] == []


def test_a_token_written_as_a_urls_only_user_is_a_credential() -> None:
    token = "9f3c1ab07d5e2c4b8a6f0e1d3c5b7a9e8d6c4b2a"  # smscan: ignore
    assert judged(f"git clone https://{token}@github.com/acme/app.git\n") == [(token, CredentialRule().secret_bonus)]
    # a person's user name, or one with a dot or a hyphen, is not read as a token
    for text in ("git clone https://deploy-bot@github.com/acme/app.git\n", "url: https://first.last2024example@host.example/x\n",
                 '<a href="http://jonathanquillfeather1984@mail.example">mail</a>\n',  # a name and a number
                 'dsn="https://4e1c2b9a07d35f68e2a1c0d9b3e4f7a2@o7.ingest.sentry.io/5",\n'):  # a DSN's public key
        assert [value for value, evidence in judged(text) if evidence is not None] == []


@pytest.mark.parametrize(
    "text",
    [
        '$DB_PASSWORD = Read-Host "Database administrator password" -AsSecureString\n',  # a call, in a README
        'assertThat(app.getClientId(), equalTo("Iv1.7e2a91c04bd35f68"));\n',  # a GitHub App's client id
        'key = "AIzaSyQw7eR4tY8uI2oP6aS3dF9gH1jK-lZxxxxxx"\n',  # a key with its end masked
        'token = "sk-Tq9wE3rT7yU1iO5pA8sD2fG6hJ0kL4zXxxxxxx"\n',
        "gl_token=glpat-bbbbbbbbbbbbbbbbbbbb\n",  # a vendor's prefix before a repeated character
    ],
)
def test_sonar_text_look_alikes_are_no_credentials(text: str) -> None:
    assert [value for value, evidence in judged(text) if evidence is not None] == []


def test_githubs_fixed_password_word_is_no_password_and_the_login_beside_it_is_the_token() -> None:
    token = "a4f0c2e19b7d35f8e6a1c0d9b2e4f7a3c5d8e0b1"  # smscan: ignore
    found = [value for value, evidence in judged(f"machine github.com\nlogin {token}\npassword x-oauth-basic\n")
             if evidence is not None]
    assert found == [token]


def test_beside_the_sonar_text_look_alikes_secrets_still_count() -> None:
    assert [v for v, e in judged(f'$DB_PASSWORD = "{KEY}"\n') if e is not None] == [KEY]
    assert [v for v, e in judged(f'key = "AIzaSyQw7eR4tY8uI2oP6aS3dF9gH1jK-lZ{KEY[:6]}"\n') if e is not None] != []
    assert [v for v, e in judged("gl_token=glpat-Zq8xP1sV9kL2mN4bT7wR\n") if e is not None] != []


def test_a_der_public_key_is_public_and_a_der_private_key_is_not() -> None:
    import base64
    import random

    rng = random.Random(24)
    point = bytes([0x04]) + bytes(rng.randrange(256) for _ in range(64))
    algorithm = bytes.fromhex("301306072a8648ce3d020106082a8648ce3d030107")  # ecPublicKey, prime256v1
    bit_string = bytes([0x03, len(point) + 1, 0x00]) + point
    spki = bytes([0x30, len(algorithm) + len(bit_string)]) + algorithm + bit_string
    public = base64.b64encode(spki).decode()
    assert is_der_public_key(public) and judged(f'const ecPub = "{public}";\n') == [(public, None)]
    # SEC 1's private key opens with its version: a credential still
    secret = bytes([0x04, 0x20]) + bytes(rng.randrange(256) for _ in range(32))
    sec1 = bytes([0x30, len(secret) + 3, 0x02, 0x01, 0x01]) + secret
    private = base64.b64encode(sec1).decode()
    assert not is_der_public_key(private)
    assert [evidence is not None for _, evidence in judged(f'const ecKey = "{private}";\n')] == [True]


def test_a_word_of_one_case_between_a_urls_user_and_its_at_sign_is_a_password_once_long() -> None:
    assert [v for v, e in judged('hosts: ["redis://bob:quintarelmosk@10.0.0.7:6379/0"]\n') if e is not None] == ["quintarelmosk"]
    # short, the user's own name, or a default's words: what images and READMEs leave there
    for url in ("redis://bob:mosk@10.0.0.7/0", "postgresql://postgres:postgres@db/x", "redis://default:mysecretpassword@db/x"):
        assert [v for v, e in judged(f'hosts: ["{url}"]\n') if e is not None] == []


def test_an_html_reference_is_read_only_where_html_defines_it() -> None:
    assert [v for v, e in judged('password = "Secret&pass;Word"\n') if e is not None] == ["Secret&pass;Word"]
    assert [v for v, e in judged('name = "J&Eacute;R&Ocirc;ME"\n') if e is not None] == []


def test_a_templates_secret_lookup_names_the_secret_it_reads() -> None:
    text = 'spring.datasource.password={{`{{ secret "db-pass1" }}`}}\n'
    assert [v for v, e in judged(text) if e is not None] == []
    assert [v for v, e in judged(f'spring.datasource.password={{{{ default "{KEY}" .Values.pw }}}}\n') if e is not None] == [KEY]


def test_a_url_password_after_a_user_written_as_an_expansion() -> None:
    text = f"DSN: postgresql://${{PGUSER:-admin}}:${{PGPASSWORD:-{KEY}}}@db:5432/app\n"
    assert [v for v, e in judged(text) if e is not None] == [KEY]
    written = f"DSN: postgresql://${{PGUSER:-admin}}:{KEY}@db:5432/app\n"  # the password written out
    assert [v for v, e in judged(written) if e is not None] == [KEY]


def test_a_key_in_the_path_of_an_rpc_providers_url_is_the_providers_key() -> None:
    # sonar-text (session 24's leftover; tuned): Infura takes the project's key as its URL's last segment
    key = "ac08c9ada68044d38f55d4cb4749d54a"  # smscan: ignore
    found = judged(f"const NETWORKS = {{\n    '1': 'https://mainnet.infura.io/v3/{key}',\n}}\n")
    assert found == [(key, CredentialRule().vendor_bonus)]
    assert judged(f"wss://mainnet.infura.io/ws/v3/{key}\n") == [(key, CredentialRule().vendor_bonus)]
    # the same segment on another host is an id, and a stand-in on Infura's is a stand-in
    assert [e for _, e in judged(f"url = 'https://mainnet.example.io/v3/{key}'\n") if e is not None] == []
    assert [e for _, e in judged("url = 'https://mainnet.infura.io/v3/YOUR_INFURA_PROJECT_ID'\n") if e is not None] == []


def test_a_stripe_publishable_key_is_public_and_its_secret_key_is_not() -> None:
    body = "j5krY8XTgIcDaHDb3YrsAfCl"
    assert [e for _, e in judged(f'STRIPE_KEY = "pk_live_{body}"\n') if e is not None] == []
    assert [v for v, e in judged(f'STRIPE_KEY = "sk_live_{body}"\n') if e is not None] == [f"sk_live_{body}"]


# Gitleaks' false positives, KICS' and Nosey Parker's negative examples (tuned sources, session 25).
@pytest.mark.parametrize(
    "text",
    [
        '    container_name       = "dp-prasdasdase-001"\n',
        ' "key_vault_name": "web21prqodx24021",\n',
        "  <UserSecretsId>79a3edd0-2092-40a2-a04d-dcb46d5ca9ed</UserSecretsId>\n",
        "export AUTH0_CLIENT_ID='oCloQt7XYc1HFas3gSBtYAcekWY25MlF'\n",
        'publicToken = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"\n',
        '<input type="hidden" name="authenticity_token" value="7SWa-Fo1_hsC6oovfBsJFLGPUl2EhkSWPbJhWANwgaJWBDl1vxd9" />\n',
        "csrf-token=Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxmiW9rhROG/Whikle15syazJOkrjJa3U2AbhIvUw==\n",
        '  -H "Authorization: Bearer <Openverse API token>" \\\n',
        'sumo_access_key   = "<SUMOLOGIC ACCESS KEY>"\n',
        '"token4": "xoxp-572370529330-573807301142-572331691188-####################"\n',
        "GR134894112312312312312312312\n",
    ],
)
def test_names_of_things_public_tokens_and_cut_stand_ins_are_no_credentials(text: str) -> None:
    assert [v for v, e in judged(text) if e is not None] == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"export AUTH0_CLIENT_SECRET='{KEY}'\n", KEY),
        (f'  "secret_id": "{KEY}",\n', KEY),  # Vault AppRole's secret half
        (f'access_token = "{KEY}"\n', KEY),
        (f'  -H "Authorization: Bearer {KEY}" \\\n', KEY),
        ('"token4": "xoxp-572370529330-573807301142-572331691188-4ddbc191d40ee098cbaae6f3523ada2d"\n',
         "xoxp-572370529330-573807301142-572331691188-4ddbc191d40ee098cbaae6f3523ada2d"),
        ("GR1348941Zq8xP1sV9kL2mN4bT7wR\n", "GR1348941Zq8xP1sV9kL2mN4bT7wR"),
    ],
)
def test_beside_names_of_things_and_cut_stand_ins_secrets_still_count(text: str, secret: str) -> None:
    assert [v for v, e in judged(text) if e is not None] == [secret]


def test_javas_default_keystore_password_and_an_obfuscated_password_are_stand_ins() -> None:
    # sonar-text's look-alikes (a tuned source): `changeit` is the JDK truststore's documented default
    for url in ("db_url: mysql+pymysql://fed-mgr:changeit@db:3306/fed_mgr\n",
                'SqlSettingsDefaultDataSource = "mysql://mmuser:obfuscated@localhost/mattermost_test"\n'):
        assert [v for v, e in judged(url) if e is not None] == [], url
    assert [v for v, e in judged("db_url: mysql+pymysql://fed-mgr:ch4ng3d1t@db:3306/fed_mgr\n") if e is not None] == ["ch4ng3d1t"]


def test_a_value_ending_in_a_run_of_hashes_is_masked() -> None:
    assert [v for v, e in judged('slack_token: "xoxp-5723-####"\n') if e is not None] == []
    assert [v for v, e in judged(f'slack_token: "{KEY}#1"\n') if e is not None] != []


# Cases a review of session 25's rules found them dropping or raising (each rule narrowed since).
@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('password = "P@SSW0RD@2024"\n', "P@SSW0RD@2024"),  # `@...@` inside a word is no configure substitution
        ('api_key = "9@K7QZ9WX2M4BV8T3@Q"\n', "9@K7QZ9WX2M4BV8T3@Q"),
        ('JAVA_OPTS="-Djavax.net.ssl.keyStorePassword=Tr0ub4dor&3xQ"\n', "-Djavax.net.ssl.keyStorePassword=Tr0ub4dor&3xQ"),  # `opts` is no format name
        (f"PUB_TOKEN={KEY}\n", KEY),  # Dart's publishing token, not a public one
        ("license: 83920-17391-84729-38473-92017\n", "83920-17391-84729-38473-92017"),  # longer than a number
    ],
)
def test_secrets_the_session_25_rules_keep(text: str, secret: str) -> None:
    assert [v for v, e in judged(text) if e is not None] == [secret]


def test_an_ipfs_content_id_on_infuras_gateway_is_no_key() -> None:
    cid = "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o"
    assert [v for v, e in judged(f'img = "https://ipfs.infura.io/ipfs/{cid}"\n') if e is not None] == []
    assert [v for v, e in judged(f'rpc = "https://polygon-mainnet.infura.io/v3/{KEY}"\n') if e is not None] == [KEY]
