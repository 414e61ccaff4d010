"""Command-line option values, and random values that only look like options."""

from __future__ import annotations

import pytest

from smscan.detectors.command_forms import option_values
from smscan.detectors.slots import find_slots


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("curl -u admin:Zq8xP1sV9 --token=k7Qm2Rw9 https://x", [("Zq8xP1sV9", "password"), ("k7Qm2Rw9", "token")]),
        ('docker run -e "API_TOKEN=k7Qm2Rw9" app', [("k7Qm2Rw9", "API_TOKEN")]),
        ("openssl pkcs12 -export -in cert.pem -passout pass:R3oLslOyt+0F -out b.p12", [("cert.pem", "in"), ("R3oLslOyt+0F", "pass"), ("b.p12", "out")]),
        ("openssl rsa -in key.pem -passin env:KEY_PASSPHRASE", [("key.pem", "in"), ("env:KEY_PASSPHRASE", "passin")]),
        ('subprocess.run(["mysqldump", "--password=k7Qm2Rw9"])', [("k7Qm2Rw9", "password")]),
        # a password option takes no `NAME=value` pair: the `=` is the password's own
        ("docker login -u ivan --password K7q=Vx2m+Lr#p registry.example.io", [("ivan", "u"), ("K7q=Vx2m+Lr#p", "password")]),
        ("docker build --secret id=npmrc,src=.npmrc .", [("npmrc,src=.npmrc", "id")]),
        # a secret option may take a spec of pairs; only a password option's `=` is the password's
        ("docker build --secret type=env,id=NPM_TOKEN .", [("env,id=NPM_TOKEN", "type")]),
        ("mysql --user=alice --password=Sn=9kLq2xPw", [("alice", "user"), ("Sn=9kLq2xPw", "password")]),
        # `=` padding is part of a token, no pair
        ("app --token=YWJjZGVmZ2hpamtsbW5vcA== --verbose", [("YWJjZGVmZ2hpamtsbW5vcA==", "token")]),
        # sshpass's `-p` is the password; ssh's `-p` a port
        ("sshpass -p k7Qm2Rw9 ssh -p 2222 deploy@host", [("k7Qm2Rw9", "password"), ("2222", "p")]),
        ("sshpass -e -p k7Qm2Rw9 scp a b", [("k7Qm2Rw9", "password")]),
    ],
)
def test_option_values(line: str, expected: list[tuple[str, str]]) -> None:
    assert [(line[a:b], name) for a, b, name in option_values(line)] == expected


@pytest.mark.parametrize(
    "password",
    ["K4v~-L=?9mTq2Rx8wPz", "pX7#-q=Lm2v9Zt4R", "a8*-xZ9t4Rq2"],
)
def test_a_dash_inside_a_random_value_starts_no_option(password: str) -> None:
    # `~-L=?9m...` once read as option `-L`, whose slot outranked the password's own.
    for line in (f'"connectionString": "Server=sql01;User Id=app;Password={password};",', f"DB_PASSWORD='{password}'"):
        assert list(option_values(line)) == []
        assert [(line[s.start : s.end], s.key) for s in find_slots(line) if s.key.lower().endswith("password")] == [
            (password, "Password" if "Server" in line else "DB_PASSWORD")
        ]


@pytest.mark.parametrize("line", ["http --auth=deploy:Zq8xP1sV9kL2 pie.dev\n", "curl --proxy-user deploy:Zq8xP1sV9kL2 https://x\n"])
def test_an_auth_option_gives_the_password_alone(line: str) -> None:
    # The user name stays out of the span, as `-u user:password` does.
    assert [(line[a:b], name) for a, b, name in option_values(line)] == [("Zq8xP1sV9kL2", "password")]
