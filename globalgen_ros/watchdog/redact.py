"""Keep secrets out of logs, topics and bags: the API key and credentials in a URL are replaced by "***"."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")
MASK = "***"


def url_secrets(base_url: str) -> list[str]:
    """Return the user name and password written in a URL (http://user:pass@host), if any."""
    try:
        url = urllib.parse.urlsplit(base_url)
    except ValueError:
        return []
    return [s for s in (url.username, url.password) if s]


def safe_url(base_url: str) -> str:
    """Return the URL without its credentials (for descriptions and errors)."""
    return _USERINFO.sub(lambda m: m.group(1), base_url)


class Redactor:
    """Replace every known secret (and any URL credentials) in a text."""

    def __init__(self, secrets: Iterable[str] = ()):
        self.secrets: list[str] = []
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        """Remember more secrets (each also as it appears stripped, percent-encoded and JSON-escaped)."""
        for secret in secrets:
            for form in {secret, secret.strip(), urllib.parse.quote(secret, safe=""), repr(secret)[1:-1]}:
                if len(form) >= 3 and form not in self.secrets:
                    self.secrets.append(form)
        self.secrets.sort(key=len, reverse=True)

    def __call__(self, text: str) -> str:
        """Return `text` with the secrets masked."""
        if not text:
            return text
        text = _USERINFO.sub(lambda m: m.group(1) + MASK + "@", text)
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text
