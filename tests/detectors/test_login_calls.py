"""A password passed by position to a login or connection call is bound to ``password``."""

from __future__ import annotations

import pytest

from smscan.detectors.credential import CredentialRule, judge_slot
from smscan.detectors.login_calls import is_positional_password
from smscan.detectors.slots import find_slots

KEY = "kiUSxvPrb2qB71"


@pytest.mark.parametrize(
    "line",
    [
        f'return DriverManager.getConnection("jdbc:postgresql://db:5432/app", "app", "{KEY}");',
        f'Connection c = DriverManager.getConnection(URL, "app", "{KEY}");',
        f"$pdo = new PDO('mysql:host=127.0.0.1;dbname=shop', 'shop_app', '{KEY}');",
        f"$db = mysqli_connect('legacy-db', 'reports', '{KEY}', 'reports_archive');",
        f"ftp_login($conn, 'deploy', '{KEY}');",
        f'server.login("alerts@example.com", "{KEY}")',
        f'server.login(os.getenv("SMTP_USER"), "{KEY}")',
        f'req.SetBasicAuth("admin", "{KEY}")',
    ],
)
def test_the_argument_in_the_password_position_is_a_named_secret(line: str) -> None:
    (slot,) = [s for s in find_slots(line) if line[s.start : s.end] == KEY]
    assert slot.key == "password"
    assert judge_slot(line, slot, CredentialRule()) == CredentialRule().secret_bonus


@pytest.mark.parametrize(
    ("left", "expected"),
    [
        # (where, who, secret): the third argument only.
        ('c = DriverManager.getConnection("jdbc:mysql://db/app", ', False),
        ('c = DriverManager.getConnection("jdbc:mysql://db/app", "app", ', True),
        ("$db = mysqli_connect('localhost', 'app', 'pw', ", False),
        # (who, secret) when the first argument is the user; (handle, who, secret) otherwise.
        ('smtp.login("me@example.com", ', True),
        ("ftp_login($conn, ", False),
        ("ftp_login($conn, 'app', ", True),
        # Keyword arguments bind by name; a started argument is not a new one.
        ('conn = connect(host="h", user="u", ', False),
        ('conn = psycopg2.connect(host="h", user="u", dbname=', False),
        # Calls that say nothing of logging in, and strings outside any call.
        ('x = format("a", "b", ', False),
        ('token = auth.get("TOKEN", ', False),
        ("curl_setopt($ch, CURLOPT_PASSWORD, ", False),
        ("password = ", False),
        # A closed inner call is part of its argument: `os.getenv("DB_USER")` is the user.
        ('db.connect(os.getenv("DB_URL"), os.getenv("DB_USER"), ', True),
    ],
)
def test_only_the_secret_position_of_a_login_call_counts(left: str, expected: bool) -> None:
    assert is_positional_password(left) is expected


def test_the_other_arguments_of_a_connection_call_are_not_reported_as_secrets() -> None:
    line = "$db = mysqli_connect('legacy-db', 'reports_reader', 'qKWFV30gg1yh7HIUPFKLxl', 'reports_archive');"
    keys = {line[s.start : s.end]: s.key for s in find_slots(line)}
    assert keys["qKWFV30gg1yh7HIUPFKLxl"] == "password"
    assert keys["reports_reader"] != "password"
    assert keys["reports_archive"] != "password"


def test_a_quote_left_open_before_the_call_does_not_shift_its_name() -> None:
    # The left context is cut to a window of the line, often inside a string: the open quote
    # must not make the call's name come out as "logi".
    assert is_positional_password("# don't c = login(user, ")
    assert is_positional_password('x = "it\'s" + str(connect(host, "app", ')
