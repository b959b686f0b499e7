"""Constrained header decoding never yields an intent, slot or value outside the schema (random logits)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from model_fixtures import *  # noqa: F403 (fixtures)

from globalgen_ros.runtime.constraints import HeaderConstraint
from globalgen_ros.runtime.format import header_tokens, parse_output, user_tokens

USER_TEXTS = ["导航到西单大悦城", "pick up the red box please", "把温度调到22度", "stop", "", "😀😀 ???",
              "put the blue cup on table 3", "给Sarah Johnson打电话", "turn left 3 meters"]


def decode_header(cons: HeaderConstraint, tok, rng: np.random.Generator, peaked: bool) -> list[int]:
    """Pick tokens by random logits among the allowed ones until the header is closed."""
    state, out = cons.start(), []
    for _ in range(400):
        allowed = cons.allowed(state)
        if allowed is None:
            return out
        assert len(allowed) > 0, f"dead end after {out}"
        logits = rng.standard_normal(tok.vocab_size) * (8.0 if peaked else 1.0)
        t = int(allowed[np.argmax(logits[allowed])])
        if cons.forced(state) is not None:
            assert cons.forced(state) == t
        out.append(t)
        state = cons.advance(state, t)
    raise AssertionError("header did not close within 400 tokens")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), text_index=st.integers(0, len(USER_TEXTS) - 1),
       extra=st.text(max_size=20), peaked=st.booleans())
@example(seed=10285, text_index=1, extra="\x85", peaked=False)  # U+0085 (whitespace, 2 byte tokens) as a value
def test_random_logits_stay_inside_the_schema(schema, small_tokenizer, seed, text_index, extra, peaked):
    tok = small_tokenizer
    text = USER_TEXTS[text_index] + extra
    user = user_tokens(tok, text)
    cons = HeaderConstraint(schema, tok, user)
    ids = decode_header(cons, tok, np.random.default_rng(seed), peaked)
    assert ids[0] == tok.intent and ids[-1] == tok.reply
    parsed = parse_output(tok.decode(ids))
    assert parsed.complete
    assert parsed.intent in schema, parsed
    assert schema.validate_output(parsed.intent, parsed.slots) == []
    order = [s.name for s in schema[parsed.intent].slots]
    assert list(parsed.slots) == [n for n in order if n in parsed.slots]  # schema order, no repeats
    required = [s.name for s in schema[parsed.intent].slots if not s.optional]
    assert set(required) <= set(parsed.slots), (parsed, required)  # no required slot is skipped
    for name, value in parsed.slots.items():
        if schema[parsed.intent].slot(name).type == "text":
            assert value and value in " ".join(tok.decode(user).split())  # a copied span of the transcript


def test_illegal_token_is_refused(schema, small_tokenizer):
    tok = small_tokenizer
    cons = HeaderConstraint(schema, tok, user_tokens(tok, "hello"))
    assert cons.forced(cons.start()) == tok.intent
    with pytest.raises(ValueError, match="not allowed"):
        cons.advance(cons.start(), tok.reply)


def test_reply_is_unconstrained_and_end_finishes(schema, small_tokenizer):
    tok = small_tokenizer
    user = user_tokens(tok, "stop")
    cons = HeaderConstraint(schema, tok, user)
    state = cons.start()
    for t in header_tokens(tok, schema, "stop", {}, user) + [tok.reply]:
        state = cons.advance(state, t)
    assert cons.allowed(state) is None and cons.forced(state) is None
    state = cons.advance(state, tok.encode(" ok")[0])
    state = cons.advance(state, tok.end)
    assert state.phase == "done" and len(cons.allowed(state)) == 0


def test_every_corpus_header_is_accepted(schema, small_tokenizer, small_corpus):
    """The training targets and the constraint agree: each gold header decodes under the constraint."""
    import json

    tok = small_tokenizer
    for line in (small_corpus / "eval.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        user = user_tokens(tok, case["text"])
        cons = HeaderConstraint(schema, tok, user)
        state = cons.start()
        for t in header_tokens(tok, schema, case["intent"], case["slots"], user) + [tok.reply]:
            state = cons.advance(state, t)
        assert state.phase == "reply"


def test_text_slot_copies_only_continuations(schema, small_tokenizer):
    tok = small_tokenizer
    user = user_tokens(tok, "pick up the red box")
    cons = HeaderConstraint(schema, tok, user)
    state = cons.start()
    for t in [tok.intent] + tok.encode("robot_pick") + [tok.slot] + tok.encode("object") + [tok.value]:
        state = cons.advance(state, t)
    assert set(cons.allowed(state).tolist()) == {t for t in user if tok.token_text(t).strip()}
    the = tok.encode(" the")[0]
    state = cons.advance(state, the)
    assert set(cons.allowed(state).tolist()) == {user[user.index(the) + 1], tok.reply}


def test_required_slot_cannot_be_skipped(schema, small_tokenizer):
    tok = small_tokenizer
    user = user_tokens(tok, "put the cup on the table")
    cons = HeaderConstraint(schema, tok, user)
    state = cons.start()
    for t in [tok.intent] + tok.encode("robot_place"):
        state = cons.advance(state, t)
    assert tok.reply not in cons.allowed(state).tolist()  # location is required
    state = cons.advance(state, tok.slot)
    names = {tok.decode([t]) for t in cons.allowed(state).tolist()}
    assert any("object".startswith(n) for n in names) and any("location".startswith(n) for n in names)
    for t in tok.encode("object") + [tok.value] + tok.encode(" the cup")[1:]:
        state = cons.advance(state, t)
    assert tok.reply not in cons.allowed(state).tolist() and tok.slot in cons.allowed(state).tolist()


def test_nothing_to_copy_never_dead_ends(schema, small_tokenizer):
    """With no copyable token (empty transcript), intents that need a text slot are not offered at all."""
    tok = small_tokenizer
    cons = HeaderConstraint(schema, tok, user_tokens(tok, ""))
    for seed in range(300):
        ids = decode_header(cons, tok, np.random.default_rng(seed), peaked=seed % 2 == 0)
        parsed = parse_output(tok.decode(ids))
        assert parsed.complete and schema.validate_output(parsed.intent, parsed.slots) == []
        assert all(s.optional or s.type != "text" for s in schema[parsed.intent].slots), parsed


def test_a_number_takes_one_decimal_point_between_digits(schema, small_tokenizer):
    tok = small_tokenizer
    assert tok.point_id is not None
    cons = HeaderConstraint(schema, tok, user_tokens(tok, "go forward 1.5 meters"))
    state = cons.start()
    for t in [tok.intent] + tok.encode("robot_move") + [tok.slot] + tok.encode("direction") + [tok.value]:
        state = cons.advance(state, t)
    for t in tok.encode("forward") + [tok.slot] + tok.encode("distance") + [tok.value]:
        state = cons.advance(state, t)
    assert tok.point_id not in cons.allowed(state).tolist()  # no leading point
    state = cons.advance(state, tok.digit_ids[1])
    assert tok.point_id in cons.allowed(state).tolist()
    state = cons.advance(state, tok.point_id)
    assert set(cons.allowed(state).tolist()) == set(tok.digit_ids)  # a digit must follow the point
    state = cons.advance(state, tok.digit_ids[5])
    assert tok.point_id not in cons.allowed(state).tolist() and tok.reply in cons.allowed(state).tolist()
    ids = header_tokens(tok, schema, "robot_move", {"direction": "forward", "distance": "1.5"}, [])
    assert parse_output(tok.decode(ids)).slots == {"direction": "forward", "distance": "1.5"}
