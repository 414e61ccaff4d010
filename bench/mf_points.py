"""Where a planted line can go in a host file without breaking it: (line index, indent) per level.

A planted block is inserted *before* ``lines[index]``. Levels: ``para`` (a paragraph of prose),
``top`` (a top-level declaration or statement), ``stmt`` (a statement inside a function body),
``member`` (a field in a class body), ``instr`` (a Dockerfile instruction), ``sql`` (a statement),
``kv`` (a key of an INI/properties/TOML file), ``line`` (.env), ``yaml``, ``json``, ``xml``,
``ci_env_new``/``ci_env_in``/``ci_step`` (CI files), ``nb_code``/``nb_markdown`` (a source line
of a notebook cell). The rules are conservative: a missed place costs nothing, a bad one makes a
host no real repository would hold.
"""

from __future__ import annotations

import re

Points = dict[str, list[tuple[int, str]]]

FUNC_OPEN = re.compile(r"\)\s*(const\s*)?(throws [\w., ]+)?(->\s*[^{=]+)?\{\s*$")
NOT_FUNC = re.compile(r"^\s*(if|for|while|switch|match|catch|else|do|try|struct|enum|union|class|interface|namespace)\b|=")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _add(points: Points, level: str, index: int, indent: str = "") -> None:
    points.setdefault(level, []).append((index, indent))


def _block_comment_lines(lines: list[str], opener: str = "/*", closer: str = "*/") -> set[int]:
    inside, out = False, set()
    for j, line in enumerate(lines):
        if inside:
            out.add(j)
        if not inside and opener in line and closer not in line[line.index(opener) + len(opener):]:
            inside = True
        elif inside and closer in line:
            inside = False
    return out


def _code_points(fmt: str, lines: list[str], points: Points) -> None:
    comment = _block_comment_lines(lines, "{-", "-}") if fmt == "haskell" else _block_comment_lines(lines)
    if fmt == "haskell":
        comment |= _block_comment_lines(lines, '"""', '"""')
    started = fmt != "php"
    for j, line in enumerate(lines):
        if fmt == "php" and "<?php" in line:
            started = True
            continue
        if not started or j in comment or j == 0:
            continue
        prev = lines[j - 1]
        # top level: after a blank line, before an unindented line, not inside a macro or a list
        if not prev.strip() and line.strip() and not line[0].isspace() and not line.startswith(("}", ")", "]", "#if", "#else", "#endif", "#elif", "where", "|")):
            before = next((x for x in reversed(lines[:j - 1]) if x.strip()), "")
            if not before.rstrip().endswith(("\\", ",", "(", "=", "[", "{")):
                _add(points, "top", j)
        # first statement of a function body
        if line.strip() and line[0].isspace() and FUNC_OPEN.search(prev) and not NOT_FUNC.search(prev) and len(_indent(line)) > len(_indent(prev)):
            _add(points, "stmt", j, _indent(line))
        # Ruby: a statement may start wherever the previous line ended one
        if fmt == "ruby" and line.strip() and not re.match(r"^\s*(\.|end\b|else\b|elsif\b|when\b|rescue\b|ensure\b|\}|\])", line) \
                and prev.strip() and not prev.rstrip().endswith((",", "\\", "(", "[", "{", "+", "&&", "||", ".", "|", "do", "=")):
            _add(points, "stmt", j, _indent(line))
        # first member of a class body
        if line.strip() and re.search(r"\b(class|struct)\s+\w+[^;]*\{\s*$", prev) and len(_indent(line)) > len(_indent(prev)):
            _add(points, "member", j, _indent(line))


_ARMOUR = re.compile(r"^\s*-----(BEGIN|END) [A-Z0-9 ]+-----")


def _armoured_lines(lines: list[str]) -> set[int]:
    """Lines inside ``-----BEGIN ...-----`` / ``-----END ...-----`` blocks (certificates kept
    in text files), the END line included: nothing is written into a key's base64."""
    inside, out = False, set()
    for j, line in enumerate(lines):
        m = _ARMOUR.match(line)
        if m and m.group(1) == "BEGIN":
            inside = True
        elif inside:
            out.add(j)
            inside = not m
    return out


def _doc_points(fmt: str, lines: list[str], points: Points) -> None:
    fence = False
    armoured = _armoured_lines(lines)
    for j, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if j in armoured:
            continue
        if fence or j == 0 or lines[j - 1].strip() or not line.strip() or line[0].isspace():
            continue
        if fmt == "rst" and line.startswith(".."):  # a directive or comment: its body follows
            continue
        if fmt == "md" and line.startswith(("|", "<")):
            continue
        _add(points, "para", j)
    if fmt in ("txt", "noext") and "para" not in points:
        # notes kept one item a line, without paragraphs: any unindented line
        for j, line in enumerate(lines):
            if j and j not in armoured and line.strip() and not line[0].isspace():
                _add(points, "para", j)


def _yaml_points(lines: list[str], points: Points, ci: bool) -> None:
    block = None
    for j, line in enumerate(lines):
        ind = len(_indent(line))
        if block is not None:
            if line.strip() and ind <= block:
                block = None
            else:
                continue
        if re.match(r"^\s*[\w.\-]+\s*:(\s|$)", line) and not line.lstrip().startswith("-") and j > 0:
            prev = lines[j - 1]
            if not prev.rstrip().endswith((",", "[", "{")):
                _add(points, "yaml", j, _indent(line))
        if ci and re.match(r"^\s*-\s+(name|run|uses):", line) and j > 0 and lines[j - 1].strip():
            _add(points, "ci_step", j, _indent(line))
        if re.search(r":\s*[|>][-+0-9]*\s*$", line):
            block = ind
    if ci:
        env = next((j for j, x in enumerate(lines) if re.match(r"^env:\s*$", x)), None)
        if env is not None:
            nxt = lines[env + 1] if env + 1 < len(lines) else ""
            _add(points, "ci_env_in", env + 1, _indent(nxt) if nxt[:1].isspace() else "  ")
        else:
            tops = [j for j, x in enumerate(lines) if re.match(r"^[\w\-]+:", x)]
            for j in tops[1:]:
                _add(points, "ci_env_new", j)


def _notebook_points(lines: list[str], points: Points) -> None:
    cell, in_source = None, False
    for j, line in enumerate(lines):
        m = re.match(r'^\s*"cell_type":\s*"(\w+)"', line)
        if m:
            cell = m.group(1)
        if re.match(r'^\s*"source":\s*\[\s*$', line):
            in_source = True
            continue
        if in_source:
            if re.match(r"^\s*\]", line):
                in_source = False
                continue
            # before any string of a source list: the planted string ends in "\n", and a comma
            if re.match(r'^\s*"', line) and cell in ("code", "markdown"):
                _add(points, f"nb_{cell}", j, _indent(line))


def insertion_points(fmt: str, lines: list[str]) -> Points:
    points: Points = {}
    n = len(lines)
    if fmt in ("md", "rst", "txt", "noext"):
        _doc_points(fmt, lines, points)
    elif fmt in ("c", "java", "go", "rust", "ruby", "php", "csharp", "haskell", "swift"):
        _code_points(fmt, lines, points)
    elif fmt == "sql":
        dollar = False
        for j, line in enumerate(lines):
            prev = next((x for x in reversed(lines[:j]) if x.strip()), "")
            if not dollar and j > 0 and line.strip() and not line[0].isspace() and (prev.rstrip().endswith(";") or prev.lstrip().startswith("--")):
                _add(points, "sql", j)
            if line.count("$$") % 2:
                dollar = not dollar
    elif fmt == "sh":
        heredoc = None
        for j, line in enumerate(lines):
            if heredoc:
                heredoc = None if line.strip() == heredoc else heredoc
                continue
            prev = lines[j - 1].rstrip() if j else ""
            if j and line.strip() and not line[0].isspace() and not prev.endswith(("\\", "|", "&&", "||", "(", "{")) \
                    and not line.strip().startswith(("esac", ";;", "fi", "done", "else", "elif", "then", "do", ")", "}")):
                _add(points, "top", j)
            m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
            if m:
                heredoc = m.group(1)
    elif fmt == "docker":
        seen_from = False
        for j, line in enumerate(lines):
            prev = lines[j - 1].rstrip() if j else ""
            if seen_from and re.match(r"^[A-Z]+\s", line) and not prev.endswith("\\"):
                _add(points, "instr", j)
            seen_from = seen_from or line.upper().startswith("FROM ")
    elif fmt in ("yaml", "ci"):
        _yaml_points(lines, points, ci=fmt == "ci")
    elif fmt == "env":
        for j in range(1, n + 1):
            if not lines[j - 1].rstrip().endswith("\\") and lines[j - 1].count('"') % 2 == 0:
                _add(points, "line", j)
    elif fmt in ("ini", "properties", "toml"):
        multi = False
        for j, line in enumerate(lines):
            if line.count('"""') % 2 or line.count("'''") % 2:
                multi = not multi
            prev = lines[j - 1].rstrip() if j else ""
            if not multi and j and re.match(r"^[\w.\-]+\s*[=:]", line) and re.match(r"^[\w.\-]+\s*[=:]", prev) \
                    and not prev.endswith(("\\", "[", "{", "(")):
                _add(points, "kv", j)
    elif fmt == "json":
        for j in range(1, n):
            if re.match(r'^\s*"[^"]*"\s*:\s*.+,\s*$', lines[j - 1]) and re.match(r'^\s*"[^"]*"\s*:', lines[j]):
                _add(points, "json", j, _indent(lines[j]))
    elif fmt == "xml":
        comment = _block_comment_lines(lines, "<!--", "-->")
        for j in range(1, n):
            prev, line = lines[j - 1].strip(), lines[j].strip()
            if j in comment or j - 1 in comment:
                continue
            if re.match(r"^<([\w:.\-]+)[^>]*>[^<]*</\1>$|^<[\w:.\-]+[^>]*/>$", prev) and line.startswith("<") and not line.startswith(("<!", "<?")):
                _add(points, "xml", j, _indent(lines[j]) if not line.startswith("</") else _indent(lines[j - 1]))
    elif fmt == "ipynb":
        _notebook_points(lines, points)
    return points
