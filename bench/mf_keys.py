"""Private-key files for the multi-format set, and their public look-alikes.

Written beside the sampled host files, in the folders of their packages (not in build metadata or
dot folders): a private key is a file of its own in a repository, not a line in another file.
"""

from __future__ import annotations

import base64
import random
import re

from bench import mf_values as V
from bench.mf_hosts import Host
from bench.mf_values import file_rng

KEY_NAMES = ("id_rsa", "deploy_key", "server.key", "jwt_private.pem", "signing-key.pem", "tls.key")
LOOKALIKE_KEY_NAMES = ("server.crt", "id_rsa.pub", "ca-bundle.pem", "public.pem")


def _certificate(r: random.Random) -> str:
    body = base64.b64encode(b"\x30\x82\x03\x1d\x30\x82\x02\x05\xa0\x03\x02\x01\x02" + r.randbytes(780)).decode()
    return "-----BEGIN CERTIFICATE-----\n" + "\n".join(body[i:i + 64] for i in range(0, len(body), 64)) \
        + "\n-----END CERTIFICATE-----"


def key_files(hosts: list[Host], n: int, seed: int) -> list[tuple[Host, list[dict], list[dict]]]:
    """Private-key files (and public look-alikes) written in folders of the sampled packages."""
    r = random.Random(f"{seed}-keys")
    folders = sorted({(h.package, h.path.rsplit("/", 1)[0] if "/" in h.path else "") for h in hosts
                      if not re.search(r"(^|/)\.|egg-info", h.path)})  # not in build metadata or dot folders
    taken = {h.rel for h in hosts}
    out: list[tuple[Host, list[dict], list[dict]]] = []
    for j in range(n):
        package, folder = r.choice(folders)
        secret = j % 3 != 2
        name = r.choice(KEY_NAMES if secret else LOOKALIKE_KEY_NAMES)
        path = f"{folder}/{name}" if folder else name
        if f"{package}/{path}" in taken:
            continue
        taken.add(f"{package}/{path}")
        fr = file_rng(seed, f"{package}/{path}")
        if secret:
            block = V.private_key_block(fr)
            spans = [{"start": 0, "end": len(block), "category": "private_key", "context": "key_file", "secret_id": 0}]
            out.append((Host(package, path, "key", block + "\n"), spans, []))
        elif name.endswith(".pub"):
            pub = "ssh-rsa " + base64.b64encode(b"\x00\x00\x00\x07ssh-rsa" + fr.randbytes(270)).decode() + " deploy@ci"
            out.append((Host(package, path, "key", pub + "\n"),
                        [], [{"start": 0, "end": len(pub), "category": "public_key", "context": "key_file"}]))
        else:
            cert = _certificate(fr)
            out.append((Host(package, path, "key", cert + "\n"),
                        [], [{"start": 0, "end": len(cert), "category": "certificate", "context": "key_file"}]))
    return out
