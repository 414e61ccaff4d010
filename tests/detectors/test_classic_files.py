"""Classic credential files (``tests/data/classic_credentials/``): each password, key or hash is
a slot whose span is the secret alone (never the user, host or syntax around it), and the
look-alikes beside them are not reported.

The folder's files are written from each format's public documentation: ``.git-credentials``,
``.netrc``, ``.pgpass``, ``.esmtprc``, ``.npmrc``, ``.htpasswd``, ``.env``, FileZilla, DBeaver,
Robomongo, Mongoid, PuTTY ``.ppk`` keys, Rails key files, PHP and WordPress config, a Ventrilo
ini, docker's ``config.json``, Jenkins' ``credentials.xml``, an irssi config, a Node Salesforce
client, connection URLs, and notes written by people; ``expected.json`` lists each file's
secrets and look-alikes. What the real model reports on them is ``test_classic_files_model.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.detectors.blocks import putty_blocks
from smscan.detectors.credential_files import credential_file_slots
from smscan.detectors.jwk_members import jwk_public_spans
from smscan.detectors.sealed_values import sealed_spans
from smscan.detectors.slot_kinds import FILE_FORMAT, PEM, PUBLIC_BLOCK
from smscan.detectors.slots import find_slots
from smscan.detectors.written_pairs import paired_passwords
from tests.detectors.credential_fixtures import judged_values, reported_values

DATA = Path(__file__).resolve().parents[1] / "data" / "classic_credentials"
EXPECTED = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))
# More surprise than any random value has with the real model (nats per character): what is
# reported at it is decided by the slots and their evidence alone.
SURPRISE = 2.5


def read(name: str) -> str:
    """The file as a scan reads it: UTF-8, line endings kept (a .ppk file has CRLF)."""
    return (DATA / name).read_bytes().decode("utf-8")


def slot_values(text: str) -> list[str]:
    return [text[s.start : s.end] for s in find_slots(text)]


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if EXPECTED[n]["secrets"]))
def test_every_secret_of_a_classic_file_is_a_slot_of_exactly_its_span(name: str) -> None:
    values = slot_values(read(name))
    for secret in EXPECTED[name]["secrets"]:
        assert secret in values


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if EXPECTED[n]["secrets"]))
def test_every_secret_of_a_classic_file_survives_the_model_free_judgement(name: str) -> None:
    judged = judged_values(read(name))
    assert set(EXPECTED[name]["secrets"]) <= judged


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_look_alikes_of_classic_files_are_not_reported_however_surprising(name: str) -> None:
    reported = reported_values(read(name), SURPRISE, path=name)
    assert not set(EXPECTED[name]["lookalikes"]) & set(reported)


def test_the_user_and_host_are_never_part_of_a_secret_span() -> None:
    for name, expected in EXPECTED.items():
        text = read(name)
        for slot in find_slots(text):
            value = text[slot.start : slot.end]
            if value in expected["secrets"]:
                assert not any(other in value for other in expected["lookalikes"]), (name, value)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("db.example.com:5432:orders:app:Vb8qTm2zKx5R\n", "Vb8qTm2zKx5R"),
        ("*:*:*:postgres:pQ3w\\:E8rT5y\n", "pQ3w\\:E8rT5y"),
        ("[::1]:5433:test:ci:Zx8Lm2Vb4Kq\n", None),  # an IPv6 host is written without brackets in .pgpass
        ("admin:$apr1$Qx7Lm2Vb$HqJZimcKQFAMYayBlzkrA/\n", "$apr1$Qx7Lm2Vb$HqJZimcKQFAMYayBlzkrA/"),
        ("reader:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n", "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="),
        ("//npm.example/:_password=VHo0cVdtOHZLcDJS\n", "VHo0cVdtOHZLcDJS"),
        ("_auth = ZGVwbG95OldxOCVuVDR6\n", "ZGVwbG95OldxOCVuVDR6"),
        ('<Pass encoding="base64">SzdtUTJ4V3A5dkxy</Pass>', "SzdtUTJ4V3A5dkxy"),
        ("<secret>{AQAAABAAAAAQIFzj9pVk4y+5StNbP8qnEQsYm+L/FqvQowXqm6/B6zk=}</secret>",
         "AQAAABAAAAAQIFzj9pVk4y+5StNbP8qnEQsYm+L/FqvQowXqm6/B6zk="),
        ("url=jdbc:oracle:thin:scott/Vk3nTq8wZr5M@//ora:1521/ORCL", "Vk3nTq8wZr5M"),
        ("sqlplus -s etl/Wq9xK2vLm4@PROD @load.sql", "Wq9xK2vLm4"),
        ("/msg NickServ IDENTIFY Qr4vHm9xTb6L", "Qr4vHm9xTb6L"),
        ("/msg NickServ identify mkowalski Qr4vHm9xTb6L; wait 2000", "Qr4vHm9xTb6L"),
        ("baba29e983cac23d8fe68cc9366461a0", "baba29e983cac23d8fe68cc9366461a0"),
        ("66d0703f66a740be81b1e1fd4b4f0810\n", "66d0703f66a740be81b1e1fd4b4f0810"),
        # Not formats of a credential file: a time, a list of ports, one word, a sentence.
        ("12:30:45:00:done\n", None),
        ("CHANGELOG_IS_KEPT_IN_DOCS\n", None),
        ("see the docs for details\n", None),
    ],
)
def test_credential_file_formats_give_the_secret_alone(text: str, secret: str | None) -> None:
    found = [text[s.start : s.end] for s in credential_file_slots(text) if s.where != "assignment"]
    assert found == ([secret] if secret else [])


def test_a_setting_named_by_its_attribute_is_bound_to_that_name() -> None:
    text = '<Setting name="Proxy password">Nq4zR8tWv2Lm</Setting>'
    (slot,) = credential_file_slots(text)
    assert (text[slot.start : slot.end], slot.key) == ("Nq4zR8tWv2Lm", "Proxy password")


def test_a_putty_key_gives_its_private_lines_as_a_private_key_and_the_rest_as_public() -> None:
    text = read("putty/backup-server.ppk")
    slots = list(putty_blocks(text))
    private = [text[s.start : s.end] for s in slots if s.where == PEM]
    assert private == EXPECTED["putty/backup-server.ppk"]["secrets"]
    assert "\r\n" in private[0] and not private[0].endswith(("\r", "\n"))
    public = [text[s.start : s.end] for s in slots if s.where == PUBLIC_BLOCK]
    assert public[0].startswith("AAAAB3NzaC1yc2E") and len(public) == 2  # the public lines and the MAC


def test_a_putty_key_pasted_into_a_terraform_heredoc_string_still_gives_its_private_lines() -> None:
    key = read("putty/backup-server.ppk").replace("\r\n", "\n").strip()
    text = f'resource "aws_transfer_ssh_key" "k" {{\n  body = <<EOF\n"{key}"\nEOF\n}}\n'
    private = [text[s.start : s.end] for s in putty_blocks(text) if s.where == PEM]
    assert private == [p.replace("\r\n", "\n") for p in EXPECTED["putty/backup-server.ppk"]["secrets"]]
    indented = "  " + key.replace("\n", "\n  ")  # `<<-EOF`: the key's lines indented with the code
    private = [indented[s.start : s.end] for s in putty_blocks(indented) if s.where == PEM]
    assert len(private) == 1 and private[0].startswith(EXPECTED["putty/backup-server.ppk"]["secrets"][0][:20])


def test_a_putty_key_is_a_private_key_whatever_its_comment_says() -> None:
    text = read("putty/deploy.ppk")
    assert "Comment: dummy-key" in text
    assert reported_values(text, SURPRISE) == EXPECTED["putty/deploy.ppk"]["secrets"]


@pytest.mark.parametrize(
    ("line", "password"),
    [
        ("Monitoring ID/Password=zabbix/Gv4tKp9sLw7N", "Gv4tKp9sLw7N"),
        ("user/pass: deploy/Hk3vQ9zLw2Xm.", "Hk3vQ9zLw2Xm"),
        ("Backup portal account:ops-backup/password:Ux6hTr3mZq9K", "Ux6hTr3mZq9K"),
        ("login=ci / pwd=Tz8qLm4Rv2Kx", "Tz8qLm4Rv2Kx"),
        ("see docs/password:reset for the flow", None),
    ],
)
def test_a_password_written_in_a_user_password_pair_is_its_own_span(line: str, password: str | None) -> None:
    assert [line[a:b] for a, b, _ in paired_passwords(line)] == ([password] if password else [])
    if password:
        assert password in slot_values(line)


@pytest.mark.parametrize(
    ("line", "token"),
    [
        ("alerts.webhook=https://chat.example.net/hooks/incoming/8Kq2Vx7Lm4Tz9Wn3Rb6Hd1Fp", "8Kq2Vx7Lm4Tz9Wn3Rb6Hd1Fp"),
        ('HOOK = "https://chat.example.net/hooks/8Kq2Vx7Lm4Tz9Wn3Rb6Hd1Fp"', "8Kq2Vx7Lm4Tz9Wn3Rb6Hd1Fp"),
        ("geo=https://maps.example.com/api/geocode/json?address=x&key=Gz7kPq2VwLx9Rn4TbM8cYh3J", "Gz7kPq2VwLx9Rn4TbM8cYh3J"),
    ],
)
def test_a_key_in_a_url_path_or_query_is_its_own_span(line: str, token: str) -> None:
    assert token in slot_values(line)


@pytest.mark.parametrize(
    "text",
    [
        "spring.datasource.password=ENC(niPUshUdY2n2I8RC+tBSo8qtkogreiny)\n",
        "password: '{cipher}AQB8f3yQk9vLm2Xw7Rt4Zp1NcHs6Jd0Ge5Bu'\n",
        "password: ENC[AES256_GCM,data:Zq8xP1sV9kL2,iv:Lm2Xw7Rt4Zp1NcHs6Jd0Ge5B,tag:Xw7Rt4Zp1NcHs6Jd0Ge5Bu==,type:str]\n",
        "  secret: __encrypt__Lm2Xw7Rt4Zp1NcHs6Jd0Gw==:Z0FBQUFBQm5Xw7Rt4Zp1NcHs6Jd0Ge5Bu=\n",
        "  password: >\n    __encrypt__Lm2Xw7Rt4Zp1NcHs6Jd0Gw==:Z0FBQUFBQm5Xw7Rt4Zp1Nc\n    Hs6Jd0Ge5BuQm9xR2kLp0sVtY7wZ3nA8cD1\n    eF4gH6jK==\n",
        # A Zuul secret: the tag, then the ciphertext's chunks as list items folded over lines.
        "      password: !encrypted/pkcs1-oaep\n        - FbeRKkCs2YlDYm944EUuUbY2mVcTwSgE00gMZokmXR2WjKqRsuLFpkOe9opn\n"
        "          mxAGizoGlzI+Lg8VnS47zShM+UqgaNzC148iY+WBuLXAEoxS3c9Gxz03Gm/Q2Tu6MJoCG\n"
        "        - OY8JvQkq+pjwkV61sIawTfQRTZkwjFO8F/viSOuF75PDZthY5SuMN5MEJ8B8Ska0WNbjw=\n      username: demo\n",
    ],
)
def test_sealed_values_are_no_slots(text: str) -> None:
    assert sealed_spans(text)
    assert all(not any(a <= s.start < b for a, b in sealed_spans(text)) for s in find_slots(text))


MODULUS = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W"
PRIVATE_EXPONENT = "X4cTteJY_gn4FYPsXB8rdXix5vwsg1FLN5E3EaG6RJoVH-HLLKD9M7dx5oo7GURknchnrRweUkC7hT5fJLM0WbFAKNLWY2vv7B6NqXSzUvxT0_YSfqijwp3RTzlBaCxWp4doFk5N2o8Gy_nHNKroADIkJ46pRUohsXywbReAdYaMwFs9tv8d_cPVY3i07a3t8MN6TNwm0dSawm9v47UiCl3Sk5ZiG7xojPLu4sbg1U2jx4IBTNBznbJSzFHK66jT8bgkuqsk0GjskDJk19Z4qwjwbsnn4j2WBii3RL-Us2lGVkY8fkFzme1z0HbIkfz0Y6mqnOYtqc0X4jfcKoAC8Q"


def test_a_json_web_keys_public_members_are_no_slots_and_its_private_ones_are() -> None:
    jwk = f'{{"keys": [{{"kty": "RSA", "kid": "2011-04-29", "n": "{MODULUS}", "e": "AQAB", "d": "{PRIVATE_EXPONENT}"}}]}}'
    assert [jwk[a:b] for a, b in jwk_public_spans(jwk)] == ["2011-04-29", MODULUS, "AQAB"]
    values = slot_values(jwk)
    assert MODULUS not in values and PRIVATE_EXPONENT in values
    # The same members in an object that declares no key type are ordinary values.
    assert jwk_public_spans(jwk.replace('"kty": "RSA", ', "")) == []
    assert MODULUS in slot_values(jwk.replace('"kty": "RSA", ', ""))
    # A Python dict, pretty-printed over lines, and an EC key's curve point.
    ec = "KEY = {\n    'kty': 'EC',\n    'crv': 'P-256',\n    'x': 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',\n}\n"
    assert "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU" not in slot_values(ec)


def test_unclosed_braces_around_a_key_type_give_no_public_members() -> None:
    text = '{"kty": "RSA", "n": "' + MODULUS + '"'
    assert jwk_public_spans(text) == []
    assert jwk_public_spans("}" * 20_000 + '"kty": "oct"' + "{" * 20_000) == []


def test_only_the_encrypted_data_of_a_sealed_secret_is_sealed() -> None:
    text = read("lookalikes/sealed-secret.yaml")
    sealed = [text[a:b] for a, b in sealed_spans(text)]
    assert sealed == EXPECTED["lookalikes/sealed-secret.yaml"]["lookalikes"]
    # The same value outside a SealedSecret is an ordinary value.
    assert sealed_spans(text.replace("kind: SealedSecret", "kind: Secret")) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("It is :data:`~flask.session`, signed with :attr:`~flask.Flask.secret_key`.", "~flask.Flask.secret_key"),
        ('<a class="headerlink" href="#paramiko.client.SSHClient.connect" title="x">', "#paramiko.client.SSHClient.connect"),
        ("#define PASSWORD_MASK          0xFFFF0000u", "0xFFFF0000u"),
        ("static const uint32_t PASSWORD_FLAGS = 0x7F3A9C21u;", "0x7F3A9C21u"),
        ("TOKEN_SEED = 0x5DEECE66D", "0x5DEECE66D"),
    ],
)
def test_references_and_constants_are_no_slots(text: str, value: str) -> None:
    assert value not in slot_values(text)


def test_file_format_slots_are_a_secret_place() -> None:
    text = "h:5432:d:u:Vb8qTm2zKx5R\n"
    (slot,) = find_slots(text)
    assert slot.where == FILE_FORMAT


def test_a_docker_auth_that_is_no_base64_login_is_no_credential() -> None:
    # Docker's `auth` is base64 of `user:password`; random bytes holding a `:` are not one.
    import base64

    login = base64.b64encode(b"deploy:Wq8%nT4zKs2Lp").decode()
    noise = base64.b64encode(b"\x8f\x01:\xfe\x99\x10Zq\xc3\x00\x7f\xd2:\x81\xee\x04").decode()
    text = f'{{\n  "auths": {{\n    "a.example": {{"auth": "{login}"}},\n    "b.example": {{"auth": "{noise}"}}\n  }}\n}}\n'
    assert judged_values(text) == {login}


def test_every_entry_of_an_htpasswd_file_is_a_password_hash() -> None:
    text = "alice:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/\nbob:Kx9vQ2mLp7wR\n# retired\ncarol:rX9a8Jw2pLq0E\n"
    values = [text[s.start:s.end] for s in find_slots(text) if s.where == "file-format"]
    assert values == ["$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/", "Kx9vQ2mLp7wR", "rX9a8Jw2pLq0E"]
    des_only = "dave:rX9a8Jw2pLq0E\nerin:Ab3.dE5/gH7kL\n"
    assert [des_only[s.start:s.end] for s in find_slots(des_only) if s.where == "file-format"] == ["rX9a8Jw2pLq0E", "Ab3.dE5/gH7kL"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("release:v1.2.3\nchannel:stable\n", []),  # name:value lines with no hash among them
        # Not lines of entries alone: only the known hash format counts.
        ("alice:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/\nsee the notes below\n", ["$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/"]),
        ("build:abcdefghijklm\n", []),  # thirteen lower-case letters are a word, no crypt
    ],
)
def test_other_name_value_lines_are_no_htpasswd_file(text: str, expected: list[str]) -> None:
    from smscan.detectors.credential_files import htpasswd_slots

    assert [text[s.start:s.end] for s in htpasswd_slots(text)] == expected
