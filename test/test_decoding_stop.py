"""Deadline and cancel: generation stops within one forward and returns the partial output it has."""

import itertools

import pytest

from globalgen_ros.assistant import Assistant, InputError
from globalgen_ros.runtime.constraints import HeaderConstraint
from globalgen_ros.runtime.format import prompt_tokens

TEXT = "请导航到北京首都国际机场第三航站楼"


@pytest.fixture(scope="module")
def assistant():
    # No prefix reuse: a prompt seen before would start from int8 warm-tier K/V instead of a fresh prefill.
    return Assistant(calibration=None, history_replies=0, cache={"reuse": False})


class TickClock:
    """A clock that advances one unit per reading, and logs when each decoder forward started."""

    def __init__(self):
        self.now = 0.0
        self.forward_starts: list[float] = []

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def generate(assistant, strategy, **kwargs):
    ids, user = prompt_tokens(assistant.tokenizer, TEXT)
    con = HeaderConstraint(assistant.schema, assistant.tokenizer, user)
    return assistant.decoder.generate(ids, constraint=con, strategy=strategy, max_new_tokens=48, **kwargs)


@pytest.mark.parametrize("strategy", ["ar", "parallel", "confident"])
@pytest.mark.parametrize("budget", [0, 1, 3])
def test_deadline_stops_within_one_forward(assistant, strategy, budget):
    full = generate(assistant, strategy)
    dec = assistant.decoder
    clock, model_forward = TickClock(), dec.model.forward
    dec.clock = clock

    def logged_forward(*args):
        clock.forward_starts.append(clock.now)
        return model_forward(*args)

    dec.model.forward = logged_forward
    streamed: list[list[int]] = []
    try:
        gen = generate(assistant, strategy, deadline=budget + 0.5, on_tokens=lambda out: streamed.append(list(out)))
    finally:
        dec.clock, dec.model.forward = __import__("time").monotonic, model_forward
    if len(full.tokens) and full.stats.forwards > budget:
        assert gen.finish_reason == "deadline"
    assert gen.stats.forwards == len(clock.forward_starts) <= budget  # each check before a forward reads the clock
    assert all(t <= budget + 0.5 for t in clock.forward_starts)  # no forward started after the deadline
    assert gen.tokens == full.tokens[: len(gen.tokens)]  # partial output is a prefix of the full reply
    if strategy != "confident" and gen.stats.forwards:
        assert len(gen.tokens) >= gen.stats.forwards  # every forward yielded at least one token
    if streamed:
        assert streamed[-1] == gen.tokens


@pytest.mark.parametrize("strategy", ["ar", "parallel"])
def test_cancel_stops_at_the_next_forward(assistant, strategy):
    full = generate(assistant, strategy)
    calls = itertools.count()
    gen = generate(assistant, strategy, cancel=lambda: next(calls) >= 2)
    assert gen.finish_reason == "cancelled"
    assert gen.stats.forwards == 2
    assert gen.tokens == full.tokens[: len(gen.tokens)] and 0 < len(gen.tokens) < len(full.tokens)


def test_assistant_reports_partial_reply_on_cancel(assistant):
    r = assistant.respond(TEXT, cancel=lambda: True)
    assert r.finish_reason == "cancelled" and r.forwards == 0
    tok = assistant.tokenizer  # forced tokens need no forward: the schema's first one, or the whole header the
    assert r.token_ids[0] == tok.intent  # understanding model decided (up to <|reply|>)
    assert r.token_ids == [tok.intent] or r.token_ids[-1] == tok.reply


@pytest.mark.parametrize("bad", ["", "   ", b"\xff\xfe broken", "x" * 5000, "\ud800"])
def test_bad_input_is_rejected_with_advice(assistant, bad):
    with pytest.raises(InputError) as err:
        assistant.respond(bad)
    assert any(w in str(err.value) for w in ("send", "split", "defer"))
