"""How the multi-format generator writes a value into a file of each type.

A context is one way of writing a credential (``password: v`` in prose, ``IDENTIFIED BY 'v'`` in
SQL, ``-pv`` on a command line, ``CURLOPT_PASSWORD`` in C, ...): the file types it fits, the level
of the host where it can go (a paragraph, a top-level declaration, a statement, a YAML key, ...),
the value categories it takes and its templates. Template fields: ``{v}`` the value (exactly once),
``{k}`` the key name in the file type's style, ``{K}`` upper snake, ``{P}`` Pascal, ``{kd}`` dotted,
``{label}`` the key as words, ``{u}`` a user, ``{h}`` an API host, ``{dbh}`` a database host,
``{i}`` the indent, ``{cmd}`` a command line (itself a context), ``{note}`` a short comment.

``negatives`` says which look-alikes a context may carry: ``named`` contexts say "secret" by
themselves (``IDENTIFIED BY``, ``-p``), so only placeholders, references and documented example keys
fit there; ``keyed`` contexts name the value with ``{k}``, so hashes, UUIDs, versions and names of
things go there under neutral names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PW = ("password", "human_password")
VENDOR = ("slack_bot_token", "slack_app_token", "stripe_restricted_key", "gitlab_runner_token", "gitlab_oauth_secret",
          "newrelic_key", "atlassian_token", "posthog_key", "jwt")
TOK = ("api_key", "oauth_client_secret", "secret_uuid") + VENDOR
ANY = PW + TOK + ("activation_key",)
DOC = ANY
CMD = PW + TOK + ("aws_access_key_id",)  # what a command line holds

DOCS = ("md", "rst", "txt", "noext")
CODE = ("c", "java", "go", "rust", "ruby", "php", "csharp", "haskell", "swift")

# value character sets a context can hold without breaking its host
CHARSETS = {
    "any": re.compile(r"[^\n\"'\\]+"),
    "nospace": re.compile(r"[^\s\"'\\`]+"),
    "url": re.compile(r"[A-Za-z0-9._~!*=\-]+"),
    "xml": re.compile(r"[^\s<>&\"'\\]+"),
    "pem": re.compile(r"-----BEGIN [A-Z ]+-----\n[A-Za-z0-9+/=\n]+\n-----END [A-Z ]+-----"),
}


@dataclass(frozen=True)
class Context:
    name: str
    formats: tuple[str, ...]
    level: str
    categories: tuple[str, ...]
    templates: tuple[str, ...]
    negatives: str = "keyed"  # keyed | named | none
    charset: str = "nospace"
    exts: tuple[str, ...] = ()  # only host files with these extensions (empty: all of the formats)
    weight: float = 1.0  # how often it is drawn among the contexts a host offers


# command lines: planted in shell scripts, Dockerfile RUN lines, CI steps and docs
COMMANDS = {
    "cli_password_flag": (PW, ("mysql --user={u} --password={v} -h {dbh} app",
                               "docker login -u {u} --password {v} registry.example.io",
                               "mysqladmin --user {u} --password {v} status",
                               "java -jar tools/migrate.jar --db-user {u} --db-password {v}",
                               "openssl pkcs12 -export -in cert.pem -passout pass:{v} -out bundle.p12")),
    "cli_short_p": (PW, ("mysql -u {u} -p{v} -h {dbh}", "mysqldump -u{u} -p{v} --all-databases > backup.sql",
                         "mysql -h {dbh} -u {u} -p{v} app < schema.sql")),
    "cli_curl_user": (PW + ("api_key",), ("curl -u {u}:{v} https://{h}/api/v1/status",
                                          "curl --user {u}:{v} -X POST https://{h}/api/v1/deploy",
                                          "curl -fsSL -u {u}:{v} https://{h}/artifacts/latest.tar.gz -o latest.tar.gz")),
    "cli_header": (TOK, ('curl -H "Authorization: Bearer {v}" https://{h}/v2/me',
                         'curl -s -H "X-Api-Key: {v}" https://{h}/v1/items',
                         'http GET https://{h}/v1/projects "Authorization:Token {v}"')),
    "cli_secret_flag": (TOK, ("./bin/deploy --super-secret_token {v} --region eu-west-1",
                              "./manage.py sync --api-key={v} --dry-run",
                              "terraform apply -var client_secret={v} -auto-approve",
                              "npx sentry-cli --auth-token {v} releases new 1.0")),
    "cli_url_userinfo": (PW, ("git clone https://{u}:{v}@gitlab.example.com/group/app.git",
                              "pip install --index-url https://{u}:{v}@pypi.example.com/simple/ app",
                              "psql postgresql://{u}:{v}@{dbh}:5432/app -c 'select 1'")),
    "cli_query": (TOK, ('curl "https://{h}/v1/export?format=csv&access_token={v}"',
                        'wget -O out.json "https://{h}/api/report?api_key={v}&limit=100"',
                        'curl "https://login.example.com/oauth2/token?grant_type=client_credentials&client_id=app&client_secret={v}"')),
    "cli_x_amz_credential": (("aws_access_key_id",), (
        'curl -o report.csv "https://reports.s3.amazonaws.com/daily.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={v}%2F20240117%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=3600"',
        'wget "https://{h}/download?Credential={v}&Expires=1718000000"')),
}

CONTEXTS: list[Context] = [
    # ---------------------------------------------------------------- prose (docs)
    Context("doc_colon", DOCS, "para", DOC, ("{label}: {v}", "- {label}: {v}", "{label} : {v}", "{LABEL}:{v}",
                                             "* {label} = {v}")),
    Context("doc_id_pw", DOCS, "para", PW, ("ID:{u},PW:{v}", "id: {u} / pw: {v}", "login {u} password {v}",
                                            "user: {u}  pass: {v}"), negatives="named"),
    Context("doc_sentence", DOCS, "para", DOC, ("The {label} for the staging box is {v} (rotate it after the demo).",
                                                "Use {v} as the {label} when the installer asks for it.",
                                                "For local testing the {label} is set to {v}, see the ops wiki."),
            negatives="named"),  # the sentences say "secret": a hash or UUID there would be one
    Context("doc_table", ("md",), "para", DOC, ("| environment | user | {label} |\n|---|---|---|\n| staging | {u} | {v} |",)),
    Context("doc_url", DOCS, "para", PW, ("Admin console: https://{u}:{v}@{h}/admin",), negatives="named", charset="url"),
    Context("doc_command", DOCS, "para", CMD, ("{cmd}",), negatives="named"),
    # ---------------------------------------------------------------- SQL
    Context("sql_identified_by", ("sql",), "sql", PW, (
        "CREATE USER '{u}'@'%' IDENTIFIED BY '{v}';", "ALTER USER {u} IDENTIFIED BY \"{v}\";",
        "GRANT ALL PRIVILEGES ON app.* TO '{u}'@'localhost' IDENTIFIED BY '{v}';"), negatives="named"),
    Context("sql_create_user_password", ("sql",), "sql", PW, (
        "CREATE USER {u} WITH PASSWORD '{v}';", "CREATE ROLE {u} LOGIN PASSWORD '{v}';",
        "ALTER ROLE {u} WITH ENCRYPTED PASSWORD '{v}';"), negatives="named"),
    Context("sql_insert", ("sql",), "sql", TOK, ("INSERT INTO api_credentials (owner, {k}) VALUES ('{u}', '{v}');",
                                                 "UPDATE settings SET value = '{v}' WHERE name = '{k}';")),
    Context("sql_comment", ("sql",), "sql", ANY, ("-- {k}: {v}", "-- run as: {cmd}")),
    # ---------------------------------------------------------------- shell
    Context("sh_command", ("sh",), "top", CMD, ("{cmd}",), negatives="named"),
    Context("sh_export", ("sh",), "top", ANY, ("export {K}={v}", "export {K}='{v}'", '{K}="{v}"')),
    # ---------------------------------------------------------------- Dockerfile
    Context("docker_env", ("docker",), "instr", ANY, ("ENV {K}={v}", "ARG {K}={v}", 'ENV {K}="{v}"')),
    Context("docker_run", ("docker",), "instr", CMD, ("RUN {cmd}",), negatives="named"),
    Context("docker_npmrc", ("docker",), "instr", ("api_key", "jwt"),
            ('RUN echo "//registry.npmjs.org/:_authToken={v}" > /root/.npmrc',), negatives="named"),
    # ---------------------------------------------------------------- CI YAML
    Context("ci_env_new", ("ci",), "ci_env_new", ANY, ("env:\n  {K}: {v}",)),
    Context("ci_env_in", ("ci",), "ci_env_in", ANY, ("{i}{K}: {v}",)),
    Context("ci_step", ("ci",), "ci_step", CMD, ("{i}- run: {cmd}",
                                                                          "{i}- name: Smoke test\n{i}  run: {cmd}"), negatives="named"),
    # ---------------------------------------------------------------- config files
    Context("yaml_key", ("yaml", "ci"), "yaml", ANY, ("{i}{k}: {v}", '{i}{k}: "{v}"', "{i}{k}: '{v}'",
                                                       "{i}{k}: {v}  # {note}")),
    Context("yaml_url", ("yaml",), "yaml", PW, ("{i}database_url: postgres://{u}:{v}@{dbh}:5432/app",
                                                "{i}broker_url: amqp://{u}:{v}@{dbh}:5672/vhost"), negatives="named", charset="url"),
    Context("env_line", ("env",), "line", ANY, ("{K}={v}", '{K}="{v}"', "{K}={v} # {note}")),
    Context("env_url", ("env",), "line", PW, ("DATABASE_URL=postgres://{u}:{v}@{dbh}:5432/app",
                                              "REDIS_URL=redis://:{v}@{dbh}:6379/0"), negatives="named", charset="url"),
    Context("ini_key", ("ini",), "kv", ANY, ("{k} = {v}", "{k}={v}", "{k}: {v}")),
    Context("ini_url", ("ini",), "kv", PW, ("sqlalchemy.url = postgresql://{u}:{v}@{dbh}/app",), negatives="named", charset="url"),
    Context("properties_key", ("properties",), "kv", ANY, ("{kd}={v}", "{kd}: {v}", "{kd} = {v}")),
    Context("properties_jdbc", ("properties",), "kv", PW, (
        "spring.datasource.password={v}", "jdbc.url=jdbc:mysql://{dbh}:3306/app?user={u}&password={v}"),
        negatives="named", charset="url"),
    Context("toml_key", ("toml",), "kv", ANY, ('{k} = "{v}"', "{k} = '{v}'", '{k} = "{v}"  # {note}')),
    Context("json_key", ("json",), "json", ANY, ('{i}"{k}": "{v}",', '{i}"{kc}": "{v}",')),
    Context("yaml_pem", ("yaml",), "yaml", ("private_key",), ("{i}{k}: |\n{i}  {v}",), negatives="none", charset="pem", weight=0.3),
    Context("json_pem", ("json",), "json", ("private_key",), ('{i}"{k}": "{v}\\n",',), negatives="none", charset="pem", weight=0.3),
    Context("json_connection_string", ("json",), "json", PW, (
        '{i}"connectionString": "Server={dbh};Database=app;User Id={u};Password={v};",',), negatives="named"),
    Context("xml_element", ("xml",), "xml", ANY, ("{i}<{kc}>{v}</{kc}>", '{i}<add key="{P}" value="{v}" />',
                                                  '{i}<property name="{kd}" value="{v}"/>'), charset="xml"),
    Context("xml_connection_string", ("xml",), "xml", PW, (
        '{i}<add name="Default" connectionString="Server={dbh};Database=app;User Id={u};Password={v};" />',),
        negatives="named", charset="xml"),
    # ---------------------------------------------------------------- source code
    Context("c_define", ("c",), "top", ANY, ('#define {K} "{v}"', 'static const char *{k} = "{v}";',
                                             'static const char {k}[] = "{v}"; /* {note} */')),
    Context("c_curlopt", ("c",), "stmt", PW, ('{i}curl_easy_setopt(curl, CURLOPT_PASSWORD, "{v}");',
                                             '{i}curl_easy_setopt(curl, CURLOPT_USERPWD, "{u}:{v}");',
                                             '{i}curl_easy_setopt(handle, CURLOPT_PROXYPASSWORD, "{v}");'), negatives="named"),
    Context("c_stmt", ("c",), "stmt", ANY, ('{i}setenv("{K}", "{v}", 1);', '{i}const char *{k} = "{v}";')),
    Context("java_field", ("java",), "member", ANY, ('{i}private static final String {K} = "{v}";',
                                                     '{i}private String {k} = "{v}";'), exts=("java",)),
    Context("java_stmt", ("java",), "stmt", ANY, ('{i}String {k} = System.getenv().getOrDefault("{K}", "{v}");',
                                                  '{i}conn.setRequestProperty("Authorization", "Bearer {v}");'), exts=("java",)),
    Context("java_jdbc", ("java",), "stmt", PW, (
        '{i}Connection db = DriverManager.getConnection("jdbc:postgresql://{dbh}/app", "{u}", "{v}");',),
        negatives="named", exts=("java",)),
    Context("kotlin_top", ("java",), "top", ANY, ('private const val {K} = "{v}"', 'val {k} = System.getenv("{K}") ?: "{v}"'),
            exts=("kt",)),
    Context("go_top", ("go",), "top", ANY, ('const {k} = "{v}"', 'var {k} = getenv("{K}", "{v}")',
                                            'var (\n\t{k} = "{v}" // {note}\n)')),
    Context("go_stmt", ("go",), "stmt", ANY, ('{i}{K} := getenv("{K}", "{v}")', '{i}req.Header.Set("Authorization", "Bearer {v}")',
                                              '{i}os.Setenv("{K}", "{v}")')),
    Context("go_basic_auth", ("go",), "stmt", PW, ('{i}req.SetBasicAuth("{u}", "{v}")',), negatives="named"),
    Context("rust_top", ("rust",), "top", ANY, ('const {K}: &str = "{v}";', 'static {K}: &str = "{v}"; // {note}')),
    Context("rust_stmt", ("rust",), "stmt", ANY, ('{i}let {k} = "{v}";',
                                                  '{i}let {k} = env::var("{K}").unwrap_or_else(|_| "{v}".to_string());')),
    Context("rust_basic_auth", ("rust",), "stmt", PW, ('{i}let req = client.get(url).basic_auth("{u}", Some("{v}"));',),
            negatives="named"),
    Context("ruby_top", ("ruby",), "top", ANY, ('{K} = "{v}"', "{K} = ENV.fetch('{K}', '{v}')", "config.{k} = '{v}'")),
    Context("ruby_stmt", ("ruby",), "stmt", ANY, ("{i}{k} = ENV.fetch('{K}', '{v}')", "{i}{k} = '{v}'")),
    Context("php_top", ("php",), "top", ANY, ("define('{K}', '{v}');", '${k} = "{v}";')),
    Context("php_curlopt", ("php",), "top", PW, ("curl_setopt($ch, CURLOPT_PASSWORD, '{v}');",
                                                 "curl_setopt($ch, CURLOPT_USERPWD, '{u}:{v}');",
                                                 "$pdo = new PDO('mysql:host={dbh};dbname=app', '{u}', '{v}');"), negatives="named"),
    Context("csharp_member", ("csharp",), "member", ANY, ('{i}private const string {P} = "{v}";',)),
    Context("csharp_stmt", ("csharp",), "stmt", ANY, ('{i}var {kc} = "{v}";', '{i}client.DefaultRequestHeaders.Add("X-Api-Key", "{v}");')),
    Context("csharp_connection_string", ("csharp",), "stmt", PW, (
        '{i}var conn = new SqlConnection("Server={dbh};Database=app;User Id={u};Password={v};");',), negatives="named"),
    Context("haskell_top", ("haskell",), "top", ANY, ('{kc} :: String\n{kc} = "{v}"', '{kc} = "{v}" -- {note}')),
    Context("swift_top", ("swift",), "top", ANY, ('let {kc} = "{v}"', 'private let {kc}: String = "{v}" // {note}')),
    # a comment fits every source file: a lower weight keeps it from crowding out the code contexts
    Context("code_comment", CODE, "top", CMD, ("{c} {cmd}",), negatives="named", weight=0.4),
    # ---------------------------------------------------------------- notebooks (lines of a cell's source)
    Context("nb_code", ("ipynb",), "nb_code", ANY, ('{k} = "{v}"', "os.environ['{K}'] = '{v}'",
                                                    "conn = psycopg2.connect(host='{dbh}', user='{u}', password='{v}')")),
    Context("nb_shell", ("ipynb",), "nb_code", CMD, ("!{cmd}",), negatives="named"),
    Context("nb_markdown", ("ipynb",), "nb_markdown", DOC, ("{label}: {v}", "- {label}: `{v}`")),
]

LINE_COMMENT = {"c": "//", "java": "//", "go": "//", "rust": "//", "ruby": "#", "php": "//", "csharp": "//",
                "haskell": "--", "swift": "//"}

SECRET_KEYS: dict[str, list[tuple[str, ...]]] = {
    "password": [("password",), ("db", "password"), ("admin", "password"), ("root", "password"), ("passwd",),
                 ("smtp", "password"), ("pwd",)],
    "api_key": [("api", "key"), ("api", "secret"), ("secret", "key"), ("access", "token"), ("auth", "token"),
                ("private", "token")],
    "activation_key": [("activation", "key"), ("license", "key"), ("product", "key"), ("serial", "key")],
    "secret_uuid": [("super", "secret", "token"), ("client", "secret"), ("api", "secret"), ("webhook", "secret"),
                    ("secret", "token")],
    "slack_bot_token": [("slack", "bot", "token"), ("slack", "token"), ("bot", "token")],
    "slack_app_token": [("slack", "app", "token"), ("app", "level", "token")],
    "stripe_restricted_key": [("stripe", "key"), ("stripe", "restricted", "key"), ("payments", "key")],
    "gitlab_runner_token": [("runner", "token"), ("registration", "token"), ("gitlab", "runner", "token")],
    "gitlab_oauth_secret": [("gitlab", "client", "secret"), ("oauth", "secret"), ("application", "secret")],
    "newrelic_key": [("new", "relic", "key"), ("newrelic", "browser", "key"), ("nr", "license", "key")],
    "atlassian_token": [("jira", "api", "token"), ("atlassian", "token"), ("confluence", "token")],
    "posthog_key": [("posthog", "personal", "key"), ("posthog", "api", "key")],
    "jwt": [("access", "token"), ("bearer", "token"), ("id", "token"), ("session", "token")],
    "aws_access_key_id": [("aws", "access", "key", "id"), ("access", "key", "id")],
    "oauth_client_secret": [("client", "secret"), ("oauth", "client", "secret"), ("google", "client", "secret")],
    "private_key": [("private", "key"), ("signing", "key"), ("tls", "key")],
}
SECRET_KEYS["human_password"] = SECRET_KEYS["password"]
# vendor-prefixed values sometimes sit under a name that says nothing
BLAND_KEYS = [("value",), ("fallback",), ("conf",), ("setting",)]
NEUTRAL_KEYS: dict[str, list[tuple[str, ...]]] = {
    "hash": [("checksum",), ("sha256",), ("commit",), ("digest",), ("integrity",)],
    "uuid_neutral": [("request", "id"), ("trace", "id"), ("tenant", "id"), ("build", "id"), ("correlation", "id")],
    "version": [("version",), ("app", "version"), ("release",), ("image", "tag")],
    "name_of_thing": [("model",), ("model", "name"), ("font", "family"), ("package",), ("base", "model")],
}
NOTES = ["rotated 2024-03", "staging only", "do not commit", "TODO move to vault", "prod", "registered by ops"]


def render_key(words: tuple[str, ...], style: str) -> str:
    if style == "upper":
        return "_".join(words).upper()
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    if style == "pascal":
        return "".join(w.capitalize() for w in words)
    if style == "dot":
        return ".".join(words)
    if style == "kebab":
        return "-".join(words)
    if style == "title":
        return " ".join(words).capitalize()
    if style == "caps":
        return " ".join(words).upper()
    if style == "words":
        return " ".join(words)
    return "_".join(words)


# the key style each file type writes {k} in
KEY_STYLE = {"java": "camel", "go": "camel", "swift": "camel", "csharp": "camel", "haskell": "camel", "json": "snake",
             "xml": "camel", "properties": "dot"}
