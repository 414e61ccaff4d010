"""Values sealed by encryption for a key that is not in the file: ciphertext is not a credential.

- a Bitnami ``SealedSecret``'s ``encryptedData`` entries (``AgA...``: only the cluster's
  controller holds the private key);
- Jasypt ``ENC(...)`` (Spring Boot, the key comes from the environment at run time);
- Spring Cloud Config ``{cipher}...``;
- SOPS ``ENC[AES256_GCM,data:...,type:str]``;
- an Ansible Vault block (``$ANSIBLE_VAULT;1.1;AES256`` and its hex lines);
- Netmiko's ``__encrypt__<iv>:<ciphertext>`` (the key is ``NETMIKO_TOOLS_KEY`` in the
  environment), folded over lines as a YAML ``>`` block writes it;
- a Travis CI ``secure:`` value (encrypted for the repository's public key; Travis holds the
  private one): one base64 run of an RSA block (128, 256 or 512 bytes), as ``travis encrypt``
  writes it;
- a Zuul secret, ``!encrypted/pkcs1-oaep`` and the base64 chunks below it (encrypted for the
  project's public key; Zuul's scheduler holds the private one), the tag included.

The slot finder drops every slot inside these spans, so neither the ciphertext nor a run of it
is judged. (A Jenkins ``{AQAAABAAAA...}`` secret is not sealed this way: the key that opens it,
``secrets/master.key``, lives in the same Jenkins home as the file.)
"""

from __future__ import annotations

import base64
import binascii
import re

_SEALED_SECRET = re.compile(r"^\s*kind:\s*SealedSecret\s*$", re.MULTILINE)
_SEALED_DATA_KEY = re.compile(r"^(?P<indent>[ \t]*)encryptedData:[ \t]*$", re.MULTILINE)
_SEALED_ENTRY = re.compile(r"^(?P<indent>[ \t]+)[\w.\-]+:[ \t]*(?P<value>Ag[A-Za-z0-9+/]{40,}=*)[ \t]*$", re.MULTILINE)
_JASYPT = re.compile(r"\bENC\((?P<value>[A-Za-z0-9+/=_\-]+)\)")
_SPRING_CIPHER = re.compile(r"\{cipher\}(?P<value>[A-Za-z0-9+/=]+)")
_SOPS = re.compile(r"\bENC\[AES256_GCM,data:[^\]\s]*\]")
_NETMIKO = re.compile(r"__encrypt__[A-Za-z0-9+/=_\-]+:[A-Za-z0-9+/=_\-]+(?:[ \t]*\r?\n[ \t]+[A-Za-z0-9+/=_\-]{8,}(?=[ \t]*(?:\r?\n|$)))*")
# The tag, maybe a block indicator, then lines of base64 deeper than the key, as list items
# (`- chunk`) or folded continuations.
_ZUUL_ENCRYPTED = re.compile(
    r"!encrypted/pkcs1-oaep(?:[ \t]+[|>][-+]?)?[ \t]*(?:\r?\n[ \t]+(?:-[ \t]+)?[A-Za-z0-9+/=]{8,}[ \t]*(?=\r?\n|$))+"
)
_TRAVIS_SECURE = re.compile(r"^[ \t]*(?:-[ \t]+)?secure:[ \t]*[\"']?(?P<value>[A-Za-z0-9+/]{100,}={0,2})[\"']?[ \t]*$", re.MULTILINE)
_ANSIBLE_VAULT = re.compile(r"\$ANSIBLE_VAULT;[\d.]+;\w+(?:;\w+)?[ \t]*\r?\n(?:[ \t]*[0-9a-f]{2,}[ \t]*\r?\n?)+")


_RSA_BLOCK_BYTES = frozenset({128, 256, 512})


def _is_rsa_block(value: str) -> bool:
    """True when base64 ``value`` decodes to exactly one RSA block (1024, 2048 or 4096 bits)."""
    try:
        return len(base64.b64decode(value, validate=True)) in _RSA_BLOCK_BYTES
    except (binascii.Error, ValueError):
        return False


def sealed_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sealed value of ``text``, sorted.

    Example:
        >>> text = "spring.datasource.password=ENC(niPUshUdY2n2I8RC+tBSo8qtkogreiny)"
        >>> [text[a:b] for a, b in sealed_spans(text)]
        ['ENC(niPUshUdY2n2I8RC+tBSo8qtkogreiny)']
    """
    spans = [(m.start(), m.end()) for pattern in (_JASYPT, _SPRING_CIPHER, _SOPS, _ANSIBLE_VAULT, _NETMIKO, _ZUUL_ENCRYPTED) for m in pattern.finditer(text)]
    spans.extend((m.start("value"), m.end("value")) for m in _TRAVIS_SECURE.finditer(text) if _is_rsa_block(m.group("value")))
    if _SEALED_SECRET.search(text):
        for block in _SEALED_DATA_KEY.finditer(text):
            indent = len(block.group("indent"))
            for entry in _SEALED_ENTRY.finditer(text, block.end()):
                if len(entry.group("indent")) <= indent:
                    break
                spans.append((entry.start("value"), entry.end("value")))
    return sorted(spans)
