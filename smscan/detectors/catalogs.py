"""Translation catalogs: files that map a message's name to its text in one language.

Gettext's ``.po``/``.pot`` files anywhere, and the YAML, JSON, properties or strings files of a
locale folder (Rails' ``config/locales/cs.yml``, ``i18n/de.json``, ``lang/messages_fr.properties``).
A catalog's names say what a message is about (``notice_account_wrong_password: Chybné heslo``),
so a secret's word in a name is no secret's place, and its values are messages.
"""

from __future__ import annotations

from smscan.detectors.code_files import suffix_of

_GETTEXT_SUFFIXES = frozenset({"po", "pot"})
_LOCALE_FOLDERS = frozenset({"locale", "locales", "i18n", "l10n", "lang", "langs", "languages", "translations"})
_LOCALE_SUFFIXES = frozenset({"yml", "yaml", "json", "properties", "strings", "xlf", "xliff"})


def is_gettext_catalog(path: str) -> bool:
    """Whether ``path`` is a gettext catalog (``.po``, ``.pot``)."""
    return suffix_of(path.replace("\\", "/")) in _GETTEXT_SUFFIXES


def is_locale_catalog(path: str) -> bool:
    """Whether ``path`` is a catalog of messages in a locale folder.

    Example:
        >>> is_locale_catalog("config/locales/cs.yml"), is_locale_catalog("src/i18n/de.json")
        (True, True)
        >>> is_locale_catalog("config/secrets.yml"), is_locale_catalog("locales/loader.py")
        (False, False)
    """
    posix = path.replace("\\", "/")
    folders = posix.lower().split("/")[:-1]
    return suffix_of(posix) in _LOCALE_SUFFIXES and any(folder in _LOCALE_FOLDERS for folder in folders)
