"""Write a file whole or not at all: a temporary file in the same folder, then a rename.

A reader (another scan, a resumed export, a crashed run's next start) sees the old file or the
new one, never a partial one: ``os.replace`` is atomic within one filesystem, which is why the
temporary file lives next to its target.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomically(path: Path, text: str, *, make_parents: bool = True) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one step; the temporary file never stays behind.

    Raises:
        OSError: the folder cannot be made or written; callers word it for their file.
    """
    directory = path.parent if str(path.parent) else Path(".")
    if make_parents:
        directory.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as temp:
            temp.write(text)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
