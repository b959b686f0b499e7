"""An imported model's own prompt format: its chat template (jinja2, rendered as transformers renders it) and
its own tokenizer, with the end-of-sequence ids recorded at import (manifest.json `chat`).

User words are untrusted: before rendering, any special token spelled in them is broken apart (and the
project's clean_text applies), so a transcript can never open a new turn or end the reply.
"""

from __future__ import annotations

import json
from datetime import datetime

from tokenizers import Tokenizer as HFTokenizer

from globalgen_ros.importer.plain import end_ids
from globalgen_ros.runtime.artifacts import ModelArtifactError, ModelArtifacts
from globalgen_ros.runtime.tokenizer import clean_text

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": text}


class TemplateError(ModelArtifactError):
    """The chat template cannot render a conversation (missing, broken, or refusing a role)."""


def compile_template(source: str):
    """Return the jinja2 template in transformers' environment (sandboxed, trim_blocks, lstrip_blocks)."""
    try:
        import jinja2
        from jinja2.ext import loopcontrols
        from jinja2.sandbox import ImmutableSandboxedEnvironment
    except ImportError as e:
        raise TemplateError("an imported model's chat template needs jinja2 (pip install jinja2)") from e

    def raise_exception(message: str):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    try:
        return env.from_string(source)
    except jinja2.exceptions.TemplateError as e:
        raise TemplateError(f"the model's chat template does not compile ({e}); re-import the model") from e


class ChatFormat:
    """Render conversations with the model's chat template and tokenize them with its tokenizer."""

    def __init__(self, artifacts: ModelArtifacts):
        chat = artifacts.manifest.get("chat") or {}
        if not chat.get("template"):
            raise TemplateError(f"{artifacts.root}: manifest.json has no chat template (chat.template); a model "
                                f"without one cannot be prompted as a chat model")
        self.template = compile_template(chat["template"])
        try:
            self.hf = HFTokenizer.from_file(str(artifacts.path("tokenizer.json")))
        except Exception as e:  # noqa: BLE001 - tokenizers raises a bare Exception on a bad file
            raise ModelArtifactError(f"{artifacts.path('tokenizer.json')}: cannot load tokenizer ({e})") from None
        self.bos_token, self.eos_token = chat.get("bos_token"), chat.get("eos_token")
        self.add_bos = bool(chat.get("add_bos_token")) and self.bos_token is not None
        self.end_ids = end_ids(artifacts)
        added = self.hf.get_added_tokens_decoder()  # id -> AddedToken
        self.special_ids = sorted(i for i, t in added.items() if t.special)
        self.specials = sorted({added[i].content for i in self.special_ids if len(added[i].content) > 1}, key=len,
                               reverse=True)
        self.vocab_size = self.hf.get_vocab_size()

    def clean(self, text: str) -> str:
        """Return untrusted text that cannot spell a special token of this vocabulary."""
        text = clean_text(text)
        for special in self.specials:
            text = text.replace(special, f"{special[0]} {special[1:]}")
        return text

    def render(self, messages: list[Message]) -> str:
        """Return the prompt text of a conversation, ending where the assistant's reply begins."""
        import jinja2

        try:
            return self.template.render(messages=messages, add_generation_prompt=True, bos_token=self.bos_token or "",
                                        eos_token=self.eos_token or "")
        except jinja2.exceptions.TemplateError as e:
            raise TemplateError(f"the model's chat template refuses this conversation ({e})") from e

    def conversation(self, system: str, history: list[tuple[str, str]], text: str) -> list[Message]:
        """Return the messages of a turn: the system prompt, earlier (user, reply) turns, the new user words.

        A template that refuses a system role gets the system prompt as the first user message's preamble."""
        turns = [m for user, reply in history for m in ({"role": "user", "content": self.clean(user)},
                                                          {"role": "assistant", "content": self.clean(reply)})]
        messages = [{"role": "system", "content": system}, *turns, {"role": "user", "content": self.clean(text)}]
        try:
            self.render(messages)
            return messages
        except TemplateError:
            first = dict(messages[1], content=f"{system}\n\n{messages[1]['content']}")
            return [first, *messages[2:]]

    def encode(self, messages: list[Message]) -> list[int]:
        """Return the token ids of a rendered conversation (special tokens of the template parsed, BOS added when
        the model's tokenizer adds one and the template did not write it)."""
        ids = self.hf.encode(self.render(messages), add_special_tokens=False).ids
        bos = self.hf.token_to_id(self.bos_token) if self.add_bos else None
        return [bos, *ids] if bos is not None and ids[:1] != [bos] else ids

    def decode(self, ids: list[int]) -> str:
        """Return the text of generated ids, special tokens left out."""
        return self.hf.decode([int(i) for i in ids], skip_special_tokens=True)
