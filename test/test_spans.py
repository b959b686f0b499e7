"""Slot spans never cut a Latin-script word, whatever the tagger proposes, and are mended (no model needed)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from globalgen_ros.grounding.words import (
    close_marks,
    conventional_span,
    drop_restart,
    is_latin_word_char,
    join_names,
    widen_to_words,
)
from globalgen_ros.scoring import cuts_a_chinese_word, cuts_a_word
from globalgen_ros.understanding.predict import last_spans, mend_inside_tags, widen_to_cjk_words, widen_to_numeral
from globalgen_ros.watchdog.language import is_cjk

NAMES = ["Renée", "Bjørn", "Siobhán", "O'Connor", "Jean-Luc", "Müllerstraße", "Zoë", "Łukasz", "François",
         "Nguyễn", "Ærø", "D'Angelo", "Søren", "İlkay", "Pier 39", "7-Eleven", "221B Baker Street"]
WORDS = st.sampled_from(NAMES + ["call", "navigate", "to", "please", "the", "给", "打电话", "导航到", "西单", ",", "!"])


@given(st.lists(WORDS, min_size=1, max_size=8), st.data())
def test_a_widened_span_never_cuts_a_latin_word(words, data):
    text = " ".join(words)
    a = data.draw(st.integers(0, len(text) - 1))
    b = data.draw(st.integers(a + 1, len(text)))
    lo, hi = widen_to_words(text, a, b)
    assert 0 <= lo <= hi <= len(text)
    if lo < hi:
        value = text[lo:hi]
        assert value == value.strip()
        assert not (lo > 0 and is_latin_word_char(text[lo - 1]) and is_latin_word_char(text[lo]))
        assert not (hi < len(text) and is_latin_word_char(text[hi - 1]) and is_latin_word_char(text[hi]))
        assert not cuts_a_word(text, value) or text.count(value) > 1


@given(st.sampled_from(NAMES), st.data())
def test_a_cut_name_is_widened_to_whole_words(name, data):
    text = f"please call {name} now"
    start = text.index(name)
    a = data.draw(st.integers(start, start + len(name) - 1))
    b = data.draw(st.integers(a + 1, start + len(name)))
    if not text[a:b].strip():
        return
    lo, hi = widen_to_words(text, a, b)
    assert lo <= a + (len(text[a:b]) - len(text[a:b].lstrip())) and hi >= b - (len(text[a:b]) - len(text[a:b].rstrip()))
    assert start <= lo and hi <= start + len(name) and not cuts_a_word(text, text[lo:hi])


def cut(text: str, part: str) -> tuple[int, int]:
    a = text.index(part)
    return a, a + len(part)


def test_a_chinese_span_is_widened_to_the_jieba_words_it_cuts():
    for text, part, whole in [("给上官婉儿打电话", "官婉儿", "上官婉儿"), ("导航到国贸三期吧", "国贸三", "国贸三期"),
                              ("宝宝别哭了。小智，放首儿歌", "儿", "儿歌")]:
        a, b = widen_to_cjk_words(text, *cut(text, part))
        assert text[a:b] == whole
    text = "导航到西单大悦城"
    assert widen_to_cjk_words(text, *cut(text, "西单大悦城")) == cut(text, "西单大悦城")  # whole words stay


def test_a_number_span_is_widened_to_the_whole_numeral():
    text = "外面三十八度 车里调到二十度"
    a, b = widen_to_numeral(text, *cut(text, "十八"))
    assert text[a:b] == "三十八"  # a number said (a distractor), never the 18 that was not said
    text = "把温度调到十八点五度"
    assert text[slice(*widen_to_numeral(text, *cut(text, "十八")))] == "十八点五"
    text = "set it to 21 please"
    assert widen_to_numeral(text, *cut(text, "21")) == cut(text, "21")


def test_a_chinese_span_that_starts_or_ends_inside_a_jieba_word_counts_as_cut():
    assert cuts_a_chinese_word("给上官婉儿打电话", "官婉儿") and cuts_a_chinese_word("我想听周杰伦的歌", "周杰")
    assert not cuts_a_chinese_word("给上官婉儿打电话", "上官婉儿")
    assert not cuts_a_chinese_word("我想听周杰伦的歌", "周杰伦")


def span(text: str, part: str, name: str, value: object = None) -> tuple[str, int, int, object]:
    """A tagged run of `name` over the first `part` of text."""
    a = text.index(part)
    return name, a, a + len(part), value


def test_the_last_run_of_a_slot_wins_and_a_name_said_in_pieces_is_joined():
    text = "call Anna, no wait, call Maria"
    assert last_spans(text, [span(text, "Anna", "contact"), span(text, "Maria", "contact")]) == {
        "contact": (text.index("Maria"), len(text), None)}
    text = "call D'Angelo Jean-Baptiste please"
    got = last_spans(text, [span(text, "D'Angelo", "contact"), span(text, "Jean-Baptiste", "contact")])
    assert text[got["contact"][0] : got["contact"][1]] == "D'Angelo Jean-Baptiste"
    text = "温度设成二十度，不，二十一度"
    got = last_spans(text, [span(text, "二十", "temperature", "20"), span(text, "二十一", "temperature", "21")])
    assert got["temperature"][2] == "21"
    text = "set it to twenty twenty-two"  # numbers are never joined: two numbers, the last one said
    got = last_spans(text, [span(text, "twenty", "temperature", "20"), span(text, "twenty-two", "temperature", "22")])
    assert got["temperature"] == (text.index("twenty-two"), len(text), "22")
    text = "put the plate on the counter"  # different slots stay apart
    got = last_spans(text, [span(text, "the plate", "object"), span(text, "the counter", "location")])
    assert set(got) == {"object", "location"}


def char_tokens(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """One token per character (offsets) and the identity map from normalised to original characters."""
    return [(i, i + 1) for i in range(len(text))], list(range(len(text)))


def mended(text: str, tagged: dict[str, str], types: dict) -> list[str]:
    """Tags of `text` (one per character) from {substring: tag}, each substring's first character B- unless I- is
    given, then mended."""
    tags = ["O"] * len(text)
    for part, tag in tagged.items():
        a = text.index(part)
        tags[a : a + len(part)] = [tag.replace("B-", "I-")] * len(part)
        if tag.startswith("B-"):
            tags[a] = tag
    return mend_inside_tags(tags, *char_tokens(text), text, types)


def test_an_inside_tag_continues_the_run_it_belongs_to():
    query = {"query": "text"}
    text = "播放周杰伦的开不了口"
    tags = mended(text, {"周杰伦的": "B-query", "口": "I-query"}, query)
    assert tags[text.index("周") : len(text)] == ["B-query"] + ["I-query"] * 7  # 周杰伦的开不了口, not 口
    text = "go to la cocina"  # an inside tag of a slot this intent lacks continues the slot it has
    offsets = [(0, 2), (2, 5), (5, 8), (8, 11), (11, 15)]  # go | _to | _la | _co | cina
    tags = ["O", "O", "B-location", "I-destination", "I-destination"]
    assert mend_inside_tags(tags, offsets, list(range(len(text))), text, {"location": "text"})[3:] == ["I-location"] * 2


def test_a_new_run_a_pause_a_filler_or_a_lone_first_word_is_not_bridged():
    query, contact = {"query": "text"}, {"contact": "text"}
    text = "播放周杰伦，稻香"
    assert mended(text, {"周杰伦": "B-query", "稻香": "B-query"}, query)[5] == "O"  # B- starts a new run
    assert mended(text, {"周杰伦": "B-query", "稻香": "I-query"}, query)[5] == "O"  # a pause between
    text = "call jon uh john smith"
    tags = mended(text, {"jon": "B-contact", "john smith": "I-contact"}, contact)
    assert tags[text.index(" uh")] == "O"
    text = "把那个杯子拿起来"  # 把 wrongly tagged: the first word never begins a run that a later I- continues
    assert mended(text, {"把": "B-object", "杯子": "I-object"}, {"object": "text"})[1:3] == ["O", "O"]
    text = "播放周杰伦的开不了口"  # gaps over MAX_INSIDE_GAP tokens are left alone
    assert mended(text, {"周杰伦": "B-query", "口": "I-query"}, query)[5:9] == ["O"] * 4


def span_mended(text: str, value: str) -> str:
    """The value as the model's span of `value` comes out of the span mends (predict.span_slots' order)."""
    a = text.index(value)
    a, b = widen_to_words(text, *join_names(text, a, a + len(value)))
    if is_cjk(text[a]) or is_cjk(text[b - 1]):
        a, b = widen_to_cjk_words(text, a, b)
    a, b = drop_restart(text, *close_marks(text, a, b))
    return text[a:b]


@pytest.mark.parametrize("text, span, value", [
    ("放一首蔡健雅的《停格》", "蔡健雅的《停格", "蔡健雅的《停格》"),  # an open title mark is closed
    ("放一下《暂停》这首歌", "《暂停", "暂停"),  # a pair around the whole span is dropped
    ("播放“七里香”", "“七里香", "七里香"),
    ("给买买提·艾力打个电话", "·艾力", "买买提·艾力"),  # a name's joining mark
    ("Play AC/DC, loud.", "/", "AC/DC"),
    ("放一首 G.E.M. 邓紫棋的歌", ".M. 邓紫棋的歌", "G.E.M. 邓紫棋的歌"),
    ("um navigate to to the uh the post office", "the uh the post office", "the post office"),  # restarts
    ("call jon jon smith", "jon jon smith", "jon smith"),
    ("play uh jazz", "uh jazz", "jazz"),
    ("navigate to Bora Bora airport", "Bora Bora airport", "Bora Bora airport"),  # a repeated name stays
    ("take me home home", "home home", "home home"),  # two words: nothing follows the repeat
    ("call Mr. Smith", "Mr. Smith", "Mr. Smith"),
    ("去《西游记》主题公园", "《西游记》主题公园", "《西游记》主题公园")])  # a pair inside stays
def test_span_mends(text, span, value):
    assert span_mended(text, span) == value


@given(st.lists(WORDS, min_size=1, max_size=8), st.data())
def test_a_mended_span_is_words_said_and_no_wider_than_the_utterance(words, data):
    text = " ".join(words)
    a = data.draw(st.integers(0, len(text) - 1))
    b = data.draw(st.integers(a + 1, len(text)))
    lo, hi = drop_restart(text, *close_marks(text, *widen_to_words(text, *join_names(text, a, b))))
    assert 0 <= lo <= hi <= len(text)


@pytest.mark.parametrize("text, span, slot, value", [
    ("把那个碗拿过来", "碗", "object", "那个碗"),  # a demonstrative and its classifier before an object
    ("你帮我把那瓶酱油拿过来", "酱油", "object", "那瓶酱油"),
    ("把这些退货拿走", "退货", "object", "这些退货"),
    ("帮我把我的老花镜拿过来", "老花镜", "object", "我的老花镜"),  # a possessive
    ("帮我把我的老花镜拿过来", "把我的老花镜", "object", "我的老花镜"),  # 把我 is one piece of the vocabulary
    ("给我妈打电话", "给我妈", "contact", "我妈"),
    ("给老王打电话", "老王", "contact", "老王"),  # nothing to drop or add
    ("放到床头柜上", "床头柜", "location", "床头柜上"),  # a localizer after a location
    ("去冰箱那边", "冰箱", "location", "冰箱那边"),
    ("去门口那里看一下", "门口那里", "location", "门口那里"),  # already there: not doubled
    ("把可乐放冰箱里", "冰箱", "location", "冰箱里"),
    ("把书放桌上", "书", "object", "书"),  # an object keeps no localizer
    ("把地上那条小被子捡起来", "小被子", "object", "地上那条小被子"),  # all that 把 governs
    ("把狗啃坏的那只拖鞋捡起来", "那只拖鞋", "object", "狗啃坏的那只拖鞋"),
    ("把那个，呃，水瓶拿来", "水瓶", "object", "水瓶"),  # a pause or a filler ends it
    ("把药放到桌上", "桌上", "location", "桌上"),  # a location is not what 把 governs
    ("导航到那个加油站", "加油站", "destination", "加油站"),  # destinations are names: left as said
    ("pick up my reading glasses", "reading glasses", "object", "my reading glasses"),  # an English possessive
    ("call her mum", "mum", "contact", "her mum"),
    ("bring her the remote", "the remote", "object", "the remote"),  # "her" is not the remote's owner here
    ("navigate to my office", "my office", "destination", "my office")])
def test_span_conventions(text, span, slot, value):
    a = text.index(span)
    lo, hi = conventional_span(text, a, a + len(span), slot)
    assert text[lo:hi] == value


@given(st.lists(WORDS, min_size=1, max_size=8), st.sampled_from(["object", "location", "contact", "query"]), st.data())
def test_a_conventional_span_only_grows_over_words_said_next_to_it(words, slot, data):
    text = "".join(words)
    a = data.draw(st.integers(0, len(text) - 1))
    b = data.draw(st.integers(a + 1, len(text)))
    lo, hi = conventional_span(text, a, b, slot)
    assert 0 <= lo <= hi <= len(text) and lo <= a + 1 and hi >= b
