"""The corpus builder is seeded, covers every intent in both languages, and its eval split is held out."""

import json
import random

from model_fixtures import *  # noqa: F403 (fixtures)

from globalgen_ros.corpus.build import TEXT_KINDS, Builder, all_templates, expansions, later_templates, split_templates
from globalgen_ros.corpus.noise import en_number, zh_number
from globalgen_ros.runtime.format import detect_language
from globalgen_ros.schema import load_schema

NATURAL = "globalgen_ros/corpus/natural_cases.jsonl"


def read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def free_text_values(slots: dict, schema, intent: str) -> set[str]:
    return {v.casefold() for k, v in slots.items() if schema[intent].slot(k).type == "text"}


def test_eval_split_shares_no_template_and_no_slot_value(small_corpus, schema):
    train_templates, train_values = set(), set()
    for dialogue in read(small_corpus / "train.jsonl"):
        for t in dialogue["turns"]:
            train_templates.add(t["template"])
            train_values |= free_text_values(t["slots"], schema, t["intent"])
    eval_cases = read(small_corpus / "eval.jsonl")
    eval_templates = {c["template"] for c in eval_cases}
    eval_values = set().union(*(free_text_values(c["slots"], schema, c["intent"]) for c in eval_cases))
    assert eval_templates and eval_values
    assert not train_templates & eval_templates
    assert not train_values & eval_values


def test_template_split_is_disjoint_and_keeps_every_group_trainable():
    train, held = split_templates(all_templates(), seed=0)
    assert not {t.key for t in train} & {t.key for t in held}
    assert {(t.intent, t.lang) for t in train} >= {(t.intent, t.lang) for t in held}
    assert len(held) >= 0.15 * (len(train) + len(held))


def test_a_later_batch_leaves_the_earlier_split_unchanged():
    """Fine-tuning on a later batch keeps measuring unseen phrasings: earlier held-out templates stay held out."""
    every = all_templates()
    earlier = [t for t in every if t.batch == 0]
    assert any(t.batch == 1 for t in every)
    train0, held0 = split_templates(earlier, seed=0)
    train, held = split_templates(every, seed=0)
    assert [t.key for t in held if t.batch == 0] == [t.key for t in held0]
    assert [t.key for t in train if t.batch == 0] == [t.key for t in train0]
    assert any(t.batch == 1 for t in held) and len({t.key for t in every}) == len(every)
    assert not any(t.batch for t in Builder(load_schema(), 0, values_per_kind=50, max_batch=0).train_t)
    for batch in (1, 2):
        upto = [t for t in every if t.batch <= batch]
        assert any(t.batch == batch + 1 for t in held)
        assert split_templates(upto, 0)[1] == [t for t in held if t.batch <= batch]


def test_later_templates_never_repeat_an_earlier_sentence(monkeypatch):
    """A later template that can yield a sentence of any earlier template (either split) is dropped."""
    from globalgen_ros.corpus import build

    earlier = [t for t in all_templates() if t.batch == 0]
    taken = set().union(*(expansions(t.text) for t in earlier))
    later = later_templates(earlier)
    assert later and all(not expansions(t.text) & taken for t in later)
    assert expansions("stop [the|] navigation [now|]") == {"stop the navigation now", "stop the navigation",
                                                          "stop navigation now", "stop navigation"}
    monkeypatch.setattr(build, "LATER", {"stop": {"en": ["Stop [right now|]", "halt, robot [now|]"]}})
    monkeypatch.setattr(build, "BATCH2", {"stop": {"en": ["halt, robot", "robot, halt"]}})
    monkeypatch.setattr(build, "BATCH3", {"stop": {"en": ["robot, halt", "halt robot now"]}})
    later = [(t.text, t.batch, t.index) for t in later_templates(earlier)]
    n0 = len(build.T["stop"]["en"])  # later keys continue after the first batch's
    assert later == [("halt, robot [now|]", 1, n0 + 1), ("robot, halt", 2, n0 + 3), ("halt robot now", 3, n0 + 5)]


def test_kin_terms_are_weighted_up_on_the_train_side_only(schema):
    """`kin_weight` draws train-side kin terms (妈妈, Mom) for training contacts; held-out contacts are untouched."""
    from globalgen_ros.corpus import lexicon
    from globalgen_ros.corpus.build import eval_value

    b = Builder(schema, seed=0, values_per_kind=300, kin_weight=1.0)
    assert "妈妈" in b.kin["zh"] and "Mom" in b.kin["en"] and "老婆" not in b.kin["zh"]  # 老婆 is a held-out value
    rng = random.Random(0)
    for lang, relations in (("zh", lexicon.ZH_RELATIONS), ("en", lexicon.EN_RELATIONS)):
        train = [b.turn(rng, False, "call", lang)["slots"]["contact"] for _ in range(50)]
        held = [b.turn(rng, True, "call", lang)["slots"]["contact"] for _ in range(50)]
        kin = {v.casefold() for v in relations}
        assert all(v.casefold() in kin and not eval_value(v) for v in train)
        assert all(eval_value(v) for v in held) and not all(v.casefold() in kin for v in held)
    base = Builder(schema, seed=0, values_per_kind=300)  # kin_weight 0: no extra draw, the old stream
    assert sum(base.turn(random.Random(i), False, "call", "zh")["slots"]["contact"] in b.kin["zh"]
               for i in range(50)) < 5


def test_builder_is_seeded(schema):
    a = Builder(schema, seed=3, values_per_kind=300)
    b = Builder(schema, seed=3, values_per_kind=300)
    assert [a.dialogue(random.Random(5)) for _ in range(20)] == [b.dialogue(random.Random(5)) for _ in range(20)]


def test_every_intent_in_both_languages_with_valid_slots(small_corpus, schema):
    seen = set()
    for dialogue in read(small_corpus / "train.jsonl"):
        for t in dialogue["turns"]:
            lang = detect_language(t["user"])
            seen.add((t["intent"], lang))
            assert schema.validate_output(t["intent"], t["slots"]) == []
            for name in free_text_values(t["slots"], schema, t["intent"]):
                assert name in t["user"].casefold()  # free-text values are words of the transcript
            assert t["reply"] and detect_language(t["reply"]) == ("zh" if detect_language(t["user"]) == "zh"
                                                                   or t["reply"][0] >= "\u4e00" else "en")
    assert seen >= {(name, lang) for name in schema.names for lang in ("zh", "en")}


def test_slot_pools_are_large(schema):
    b = Builder(schema, seed=0, values_per_kind=3000)
    for lang in ("zh", "en"):
        for kind in TEXT_KINDS:
            assert len(b.values[(lang, kind)][False]) > 2000, (lang, kind)


def test_spoken_numbers():
    assert [zh_number(n) for n in (2, 10, 16, 22, 30)] == ["两", "十", "十六", "二十二", "三十"]
    assert [en_number(n) for n in (7, 20, 22)] == ["seven", "twenty", "twenty two"]


def test_natural_cases_are_valid(schema):
    from pathlib import Path

    cases = [json.loads(line) for line in (Path(__file__).parents[1] / NATURAL).read_text().splitlines()]
    assert len(cases) >= 60
    assert {detect_language(c["text"]) for c in cases} == {"zh", "en"}
    for c in cases:
        assert schema.validate_output(c["intent"], c["slots"]) == [], c
