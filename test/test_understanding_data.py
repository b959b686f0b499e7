"""Training data of the understanding model: supplements, context wrapping and number tags after a prefix."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from globalgen_ros.schema import load_schema
from globalgen_ros.understanding.data import (
    BLIND,
    HELD_OUT_TOPICS,
    IGNORE,
    NOT_STOP,
    NOT_STOP_ID,
    NOT_YET_TRAINED,
    STOP_LISTS,
    SUPPLEMENTS,
    Example,
    augment_context,
    decline_families,
    encode_example,
    held_out_families,
    stop_list_examples,
    supplement_examples,
    wrap_context,
)
from globalgen_ros.understanding.labels import decode_bio, layout_from_schema

TOKENIZER = Path(__file__).resolve().parent.parent / "models" / "default" / "nlu" / "tokenizer.json"
LAYOUT = layout_from_schema(load_schema())


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.from_file(str(TOKENIZER))


def tagged(tok, ex: Example) -> str:
    """The text of the tokens tagged as a slot (B or I), joined."""
    enc = encode_example(tok, LAYOUT, ex, 64, Counter())
    norm = tok.encode(ex.text)
    assert enc is not None
    return "".join(ex.text[s:e] for (s, e), t in zip(norm.offsets, enc.tags, strict=True) if t not in (0, IGNORE))


def blind_lines() -> set[str]:
    """Every text of the blind evaluation sets (eval/blind/), lower case without punctuation or spaces."""
    out = set()
    for path in sorted((Path(__file__).resolve().parent.parent / "eval" / "blind").iterdir()):
        if path.suffix == ".jsonl":
            out.update(json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line)
        elif path.suffix == ".json":
            out.update(t for part in json.loads(path.read_text(encoding="utf-8")).values() for ts in part.values()
                       for t in ts)
    return {re.sub(r"[\W_]+", "", t.lower()) for t in out}


def test_no_supplement_line_is_a_line_of_a_blind_evaluation_set():
    blind = blind_lines()
    assert len(blind) > 2000
    items = supplement_examples(SUPPLEMENTS + NOT_YET_TRAINED)
    assert not [e.text for e in items if re.sub(r"[\W_]+", "", e.text.lower()) in blind]


def test_a_number_is_tagged_where_the_command_says_it_not_in_the_context_before(tok):
    text = "it was 21 degrees this morning, set it to 21"
    ex = Example(text, "set_temperature", {"temperature": "21"}, "en", "supplements", start=text.index("set"))
    enc = encode_example(tok, LAYOUT, ex, 64, Counter())
    offsets = tok.encode(text).offsets
    tagged_end = [offsets[t][1] for t, tag in enumerate(enc.tags) if tag == LAYOUT.tag_id("B-temperature")]
    assert tagged_end == [len(text)]  # the second 21, not the morning's
    zh = "外面三十八度，车里调到二十度"
    assert "二十" in tagged(tok, Example(zh, "set_temperature", {"temperature": "20"}, "zh", "supplements"))


def test_every_supplement_item_encodes_and_no_decline_touches_a_held_out_family(tok):
    items = supplement_examples(SUPPLEMENTS + NOT_YET_TRAINED)
    assert len(items) > 1000 and {e.lang for e in items} == {"en", "zh"}
    drops = Counter()
    assert all(encode_example(tok, LAYOUT, e, 64, drops) is not None for e in items), drops
    assert not [e.text for e in items if e.intent == "none" and HELD_OUT_TOPICS.search(e.text)]
    assert {e.intent for e in items} <= set(LAYOUT.intents)
    assert len({(e.lang, e.text) for e in items}) == len(items)


def test_held_out_topics_cover_the_held_out_families():
    fams, part_a = decline_families()
    held = held_out_families(part_a)
    texts = [t for f in held for ts in fams[f].values() for t in ts]
    assert sum(bool(HELD_OUT_TOPICS.search(t)) for t in texts) >= 0.5 * len(texts)


def test_context_wrapping_keeps_labels_and_wraps_negations_too(tok):
    pool = {"en": ["I had a long day", "the weather is nice"], "zh": ["今天好累", "天气不错"]}
    exs = [Example("don't call mom", "none", {}, "en", "near_misses"),
           Example("call mom", "call", {"contact": "mom"}, "en", "supplements"),
           Example("给妈妈打电话", "call", {"contact": "妈妈"}, "zh", "corpus")]
    out, n = augment_context(exs * 20, pool, seed=1, p_pos=1.0, p_none=1.0)
    assert n["wrapped_none"] == 20 and n["wrapped_pos"] == 40
    for ex in out:
        assert ex.source.endswith("+ctx") and ex.text.index(ex.text[ex.start:]) <= ex.start
        assert ex.intent in ("none", "call")
        if ex.intent == "call":
            assert tagged(tok, ex).strip().lower() in ("mom", "妈妈")
    w = wrap_context(exs[1], pool, random.Random(0))
    assert w.text[w.start:].lower().startswith("call mom")


def test_touching_runs_of_one_slot_are_one_span():
    """"Navigate to the nearest gas station" tagged B B I I: one destination, not "the"."""
    assert decode_bio(["O", "B-destination", "B-destination", "I-destination", "O"]) == [("destination", 1, 4)]
    assert decode_bio(["B-object", "O", "B-object"]) == [("object", 0, 1), ("object", 2, 3)]
    assert decode_bio(["B-object", "B-location", "I-location"]) == [("object", 0, 1), ("location", 1, 3)]


def test_stop_lists_train_urgent_lines_as_stop_and_near_misses_as_only_not_stop(tok):
    items = stop_list_examples()
    by = Counter(e.intent for e in items)
    assert set(by) == {"stop", NOT_STOP} and by["stop"] > 3000 and by[NOT_STOP] > 3000
    assert {e.lang for e in items} == {"en", "zh"}
    assert len({(e.lang, e.text) for e in items}) == len(items)
    near = next(e for e in items if e.intent == NOT_STOP)
    enc = encode_example(tok, LAYOUT, near, 64, Counter())
    assert enc.intent == NOT_STOP_ID and set(enc.tags) == {IGNORE} and set(enc.enums) == {IGNORE}
    urgent = next(e for e in items if e.intent == "stop")
    enc = encode_example(tok, LAYOUT, urgent, 64, Counter())
    assert LAYOUT.intents[enc.intent] == "stop" and set(enc.tags) <= {0, IGNORE}


def test_fresh_stop_lists_are_not_trained_on():
    listed = sorted(p.name for p in BLIND.glob("reflex_stops*.json"))
    assert set(STOP_LISTS) < set(listed)  # lists 15 and later stay blind tests of the model
    assert not {"reflex_stops_15.json", "reflex_stops_16.json", "reflex_stops_17.json"} & set(STOP_LISTS)


def test_surface_forms_keep_intent_and_slot_words(tok):
    """Every surface form still tags the slot's words and keeps the intent; none stays none as often as commands
    change; sound-alike characters never touch a slot or a numeral; questions get no polite frame or tag."""
    from globalgen_ros.understanding.surface import homophones, surface_form

    exs = [Example("Wind the window down.", "window", {"action": "open"}, "en", "corpus"),
           Example("Call Renée O'Brien!", "call", {"contact": "Renée O'Brien"}, "en", "corpus"),
           Example("set it to twenty two degrees", "set_temperature", {"temperature": "22"}, "en", "corpus"),
           Example("what's the weather like?", "none", {}, "en", "declines"),
           Example("给周杰伦打电话", "call", {"contact": "周杰伦"}, "zh", "corpus"),
           Example("把温度调到二十二度", "set_temperature", {"temperature": "22"}, "zh", "corpus"),
           Example("今天天气怎么样？", "none", {}, "zh", "declines")]
    sounds = homophones(["周州舟洲粥电店点打大达话画化度渡杜温文闻天田填气汽器"] * 3)
    rng, kinds = random.Random(0), Counter()
    for _ in range(60):
        for ex in exs:
            form = surface_form(ex, sounds, rng)
            if form is None:
                continue
            kinds[form.source.rsplit("+", 1)[1]] += 1
            assert form.intent == ex.intent and set(form.slots) == set(ex.slots)
            assert encode_example(tok, LAYOUT, form, 64, Counter()) is not None, form
            if "contact" in ex.slots:
                assert tagged(tok, form).strip().lower() == ex.slots["contact"].lower(), form
            if form.source.endswith("+sound"):
                assert "周杰伦" in form.text or "周杰伦" not in ex.text
                assert "二十二" in form.text or "二十二" not in ex.text
            if ex.text.endswith(("?", "？")):
                assert not form.source.endswith(("+polite", "+tag"))
    assert set(kinds) == {"asr", "filler", "tag", "polite", "sound"}
