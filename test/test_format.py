"""Prompt building and output parsing follow the text format of docs/architecture.md."""

from model_fixtures import *  # noqa: F403 (fixtures)

from globalgen_ros.runtime.format import (
    find_span,
    header_tokens,
    parse_output,
    prompt_tokens,
    turn_tokens,
    user_tokens,
)


def test_turn_layout(small_tokenizer, schema):
    tok = small_tokenizer
    ids, start = turn_tokens(tok, schema, "pick up the red box", "robot_pick", {"object": "the red box"},
                             "Picking up the red box.")
    assert ids[0] == tok.user and ids[start - 1] == tok.assistant and ids[-1] == tok.end
    raw = tok.decode(ids[start:-1])
    assert raw.startswith("<|intent|>robot_pick<|slot|>object<|value|>")
    p = parse_output(raw)
    assert (p.intent, p.slots, p.reply, p.complete) == ("robot_pick", {"object": "the red box"},
                                                         "Picking up the red box.", True)


def test_text_values_are_copied_spans(small_tokenizer, schema):
    tok = small_tokenizer
    for text, value in [("导航到西单大悦城", "西单大悦城"), ("navigate to Maple Park please", "Maple Park"),
                        ("播放Taylor Swift的歌", "Taylor Swift"), ("Maple Park", "Maple Park")]:
        user = user_tokens(tok, text)
        span = find_span(tok, user, value)
        assert span and any(user[i:i + len(span)] == span for i in range(len(user)))
        assert tok.decode(span).strip() == value


def test_values_outside_the_transcript_or_schema_are_refused(small_tokenizer, schema):
    import pytest

    tok = small_tokenizer
    user = user_tokens(tok, "go to the kitchen")
    with pytest.raises(ValueError, match="not a token span"):
        header_tokens(tok, schema, "robot_go_to", {"location": "the garage"}, user)
    with pytest.raises(ValueError, match="not one of"):
        header_tokens(tok, schema, "climate", {"state": "warm"}, user)
    with pytest.raises(ValueError, match="not a number"):
        header_tokens(tok, schema, "set_temperature", {"temperature": "twenty"}, user)


def test_prompt_with_history(small_tokenizer):
    tok = small_tokenizer
    first, _ = prompt_tokens(tok, "stop")
    assert first[0] == tok.bos and first[-1] == tok.assistant
    raw = "<|intent|>stop<|reply|> Stopping now."
    ids, user = prompt_tokens(tok, "go to the kitchen", [("stop", raw)])
    assert ids[:len(first)] == first and ids.count(tok.end) == 1 and ids[-1] == tok.assistant
    assert ids[-len(user) - 1:-1] == user


def test_parse_partial_and_garbage():
    p = parse_output("<|intent|>navigate<|slot|>destination<|value|> 西单")
    assert (p.intent, p.slots, p.complete) == ("navigate", {"destination": "西单"}, False)
    assert parse_output("").intent == "none"
