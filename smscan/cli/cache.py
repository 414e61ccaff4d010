"""`smscan cache info` and `smscan cache clear`: the score cache's location, size, and removal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING


from smscan.cli.help import Command, plain_app
from smscan.cli.options import ConfigOption
from smscan.cli.scanning import command_settings
from smscan.cli.services import current_services

if TYPE_CHECKING:
    from smscan.scoring.cache import ScoreCache

cache_app = plain_app(help="Inspect or clear the score cache (token scores of texts scanned before; no text).")


def _cache(config: Path | None) -> ScoreCache:
    from smscan.scoring.cache import ScoreCache, default_cache_dir

    services = current_services()
    settings = command_settings(Path.cwd(), config, {}, services)
    return ScoreCache(default_cache_dir(services.environ), max_bytes=settings.score_cache_mb << 20)


@cache_app.command("info", cls=Command, short_help="Show the cache's location, entries and size.")
def info_command(config: ConfigOption = None) -> None:
    """Show where the score cache is, its entries and size, and its bound."""
    cache = _cache(config)
    info = cache.info()
    console = current_services().console()
    console.print(f"location  {info.location}", markup=False)
    console.print(f"entries   {info.entries}", markup=False)
    console.print(f"scores    {_mb(info.bytes_stored)} (bound {_mb(info.max_bytes)}, score_cache_mb)", markup=False)
    console.print(f"on disk   {_mb(info.file_bytes)}", markup=False)
    if cache.disabled:
        console.print(f"unusable  {cache.disabled}", markup=False)


@cache_app.command("clear", cls=Command, short_help="Delete the score cache.")
def clear_command(config: ConfigOption = None) -> None:
    """Delete the score cache (the next scan of each text scores it again)."""
    cache = _cache(config)
    freed = cache.clear()
    current_services().console().print(f"cleared {cache.path} ({_mb(freed)} freed)", markup=False)


def _mb(size: int) -> str:
    return f"{size / (1 << 20):.1f} MB"
