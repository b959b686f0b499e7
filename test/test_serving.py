"""The ROS-free serving rules: confirmation flows, number grounding and ranges, decline routing (no ROS traffic)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from globalgen_ros.grounding.numbers import is_said, numbers_said
from globalgen_ros.schema import SchemaError, load_schema, parse_schema
from globalgen_ros.scoring import score
from globalgen_ros.serving.checks import check_answer
from globalgen_ros.serving.confirm import Confirmations, ConfirmWordsError, load_words
from globalgen_ros.watchdog.language import CANCELLED, NOTHING_TO_CONFIRM
from globalgen_ros.watchdog.supervisor import CLOUD, DEFERRED, EDGE, NODE, OK, Outcome, is_decline

SCHEMA = load_schema()
ZH_DIGITS = "零一二三四五六七八九"


def zh_number(n: int) -> str:
    """Write 0-99 as Chinese numerals (the way people say them: 十二, 二十, 二十四)."""
    if n < 10:
        return ZH_DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else ZH_DIGITS[tens]) + "十" + (ZH_DIGITS[ones] if ones else "")


EN_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
          "seventeen eighteen nineteen".split()
EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def en_number(n: int) -> str:
    """Write 0-99 in English words."""
    if n < 20:
        return EN_ONES[n]
    tens, ones = divmod(n, 10)
    return EN_TENS[tens] + (f" {EN_ONES[ones]}" if ones else "")


def call(contact: str = "妈妈", language: str = "zh-CN", source: str = EDGE) -> Outcome:
    return Outcome(OK if source == EDGE else DEFERRED, source, f"好的，正在呼叫{contact}。", language, intent="call",
                   slots={"contact": contact}, confidence=0.9)


def temperature(value: str, language: str = "en-US", text: str = "") -> Outcome:
    return Outcome(OK, EDGE, text or f"Setting the temperature to {value} degrees.", language,
                   intent="set_temperature", slots={"temperature": value}, confidence=0.9)


# ---- confirmation ---------------------------------------------------------------------------------------------
@pytest.fixture
def clock():
    return [100.0]


@pytest.fixture
def confirmations(clock):
    return Confirmations(SCHEMA, timeout_s=10.0, clock=lambda: clock[0])


@pytest.mark.parametrize("lang, contact, yes, question", [("zh-CN", "妈妈", "好的", "要呼叫妈妈吗？"),
                                                          ("zh-CN", "王伟", "打吧", "要呼叫王伟吗？"),
                                                          ("en-US", "Mom", "yes", "Call Mom?"),
                                                          ("en-US", "Renée", "Yeah, go ahead.", "Call Renée?")])
def test_ask_then_yes_publishes_the_same_intent_confirmed(confirmations, lang, contact, yes, question):
    asked = confirmations.ask("s1", call(contact, lang))
    assert asked.text == question and asked.confirmed is False and asked.intent == "call"
    confirmed = confirmations.answer("s1", yes, lang)
    assert confirmed.intent == "call" and confirmed.slots == {"contact": contact} and confirmed.confirmed is True
    assert confirmed.text == f"好的，正在呼叫{contact}。" and confirmed.strategy == "confirm"
    assert confirmations.answer("s1", yes, lang).intent == "none", "a second yes confirms nothing"


@pytest.mark.parametrize("no", ["no", "No, cancel.", "never mind", "取消", "算了", "不用了", "别打了"])
def test_no_cancels(confirmations, no):
    confirmations.ask("s1", call())
    outcome = confirmations.answer("s1", no, "zh-CN")
    assert outcome.intent == "none" and outcome.text == CANCELLED["zh-CN"] and outcome.source == NODE
    assert confirmations.answer("s1", "好的", "zh-CN").text == NOTHING_TO_CONFIRM["zh-CN"]


def test_another_command_cancels_and_goes_to_the_model(confirmations):
    confirmations.ask("s1", call())
    assert confirmations.answer("s1", "导航到西单大悦城", "zh-CN") is None
    assert confirmations.answer("s1", "好的", "zh-CN").text == NOTHING_TO_CONFIRM["zh-CN"]


def test_timeout_cancels(confirmations, clock):
    confirmations.ask("s1", call("Mom", "en-US"))
    clock[0] += 10.5
    outcome = confirmations.answer("s1", "yes", "en-US")
    assert outcome.intent == "none" and outcome.text == NOTHING_TO_CONFIRM["en-US"]


def test_lone_yes_and_other_sessions_confirm_nothing(confirmations):
    assert confirmations.answer("s1", "yes", "en-US").intent == "none"
    confirmations.ask("s1", call())
    assert confirmations.answer("s2", "好的", "zh-CN").intent == "none", "a yes from another session"
    assert confirmations.answer("s1", "好的", "zh-CN").intent == "call"


def test_a_stop_cancels_every_question(confirmations):
    confirmations.ask("a", call())
    confirmations.ask("b", call("Mom", "en-US"))
    assert confirmations.cancel_all() == 2 and len(confirmations) == 0
    assert confirmations.answer("a", "好的", "zh-CN").intent == "none"


@pytest.mark.parametrize("text", ["yes play some music", "好的导航到机场", "call mom", "", "yesterday", "不错"])
def test_only_whole_answers_count(confirmations, text):
    assert confirmations.classify(text) is None


def test_needs_asking_only_for_unconfirmed_schema_intents(confirmations):
    assert confirmations.needs_asking(call())
    assert not confirmations.needs_asking(temperature("22"))
    assert not confirmations.needs_asking(confirmations.answer("x", "yes", "en") or call())  # "nothing" is none


def motion(intent: str, slots: dict, confidence: float, language: str = "en-US", source: str = EDGE) -> Outcome:
    return Outcome(OK, source, "On my way.", language, intent=intent, slots=slots, confidence=confidence)


@pytest.mark.parametrize("intent, slots, lang, question", [
    ("robot_go_to", {"location": "门口"}, "zh-CN", "要去门口吗？"),
    ("robot_move", {"direction": "left", "distance": "2"}, "zh-CN", "要向左移动2米吗？"),
    ("robot_move", {"direction": "backward"}, "en-US", "Move backward?"),
    ("robot_place", {"location": "the desk"}, "en-US", "Put it at the desk?"),
    ("navigate", {"destination": "home"}, "en-US", "Navigate to home?")])
def test_uncertain_motion_is_asked_first(confirmations, intent, slots, lang, question):
    below = SCHEMA[intent].confirm_below
    assert below > 0.5
    assert not confirmations.needs_asking(motion(intent, slots, below, lang))  # sure enough: acted on
    assert not confirmations.needs_asking(motion(intent, slots, 0.0, lang, source=CLOUD))  # no edge confidence
    unsure = motion(intent, slots, below - 0.01, lang)
    assert confirmations.needs_asking(unsure)
    asked = confirmations.ask("s1", unsure)
    assert (asked.text, asked.confirmed, asked.slots) == (question, False, slots)
    confirmed = confirmations.answer("s1", "好的" if lang == "zh-CN" else "yes", lang)
    assert (confirmed.intent, confirmed.slots, confirmed.confirmed) == (intent, slots, True)
    assert not confirmations.needs_asking(confirmed)


def declined(second: dict | None, source: str = EDGE) -> Outcome:
    return Outcome(OK, source, "Sorry, I can't do that yet.", "en-US", confidence=0.7, second=second)


@pytest.mark.parametrize("second, text, above, asked", [
    ({"intent": "media_control", "confidence": 0.3, "slots": {"action": "next"}}, "skip it", 0.2, "media_control"),
    ({"intent": "media_control", "confidence": 0.3, "slots": {"action": "next"}}, "skip it", 0.0, None),  # off
    ({"intent": "media_control", "confidence": 0.1, "slots": {"action": "next"}}, "skip it", 0.2, None),  # too low
    ({"intent": "play_music", "confidence": 0.4, "slots": {}}, "some tunes", 0.2, None),  # query missing
    ({"intent": "set_temperature", "confidence": 0.4, "slots": {"temperature": "45"}}, "45 degrees", 0.2, None),
    ({"intent": "set_temperature", "confidence": 0.4, "slots": {"temperature": "22"}}, "so cold", 0.2, None),
    ({"intent": "robot_move", "confidence": 0.4, "slots": {"direction": "left"}}, "left a bit?", 0.2, "robot_move"),
    (None, "hello", 0.2, None)])
def test_clarify_asks_about_a_complete_command_that_came_second(confirmations, second, text, above, asked):
    out = confirmations.clarify(declined(second), text, above)
    assert (out.intent if out else None) == asked
    if out:
        assert out.slots == second["slots"] and out.confidence == second["confidence"] and out.second is None
        assert confirmations.ask("s", out).confirmed is False
    assert confirmations.clarify(declined(second, source=CLOUD), text, above) is None  # only the edge's declines


def test_confirm_words_file_errors_name_the_file(tmp_path):
    with pytest.raises(ConfirmWordsError, match="missing.yaml"):
        load_words(tmp_path / "missing.yaml")


# ---- numbers and ranges --------------------------------------------------------------------------------------
@given(st.integers(0, 99), st.sampled_from(["zh", "en", "digits"]), st.integers(0, 99))
def test_numbers_said_in_words_and_digits_are_found(n, form, distractor):
    said = {"zh": zh_number(n), "en": en_number(n), "digits": str(n)}[form]
    text = {"zh": f"{distractor}号门那边，把温度调到{said}度",
            "en": f"at gate {distractor} set the temperature to {said}",
            "digits": f"exit {distractor}, temperature {said}"}[form]
    assert numbers_said(text) == [str(distractor), str(n)]
    assert is_said(str(n), text) and is_said(str(distractor), text)


@given(st.integers(1, 19), st.integers(1, 9), st.sampled_from(["zh_tenths", "zh_half", "en_half", "digits"]),
       st.integers(0, 99))
def test_spoken_measures_are_one_number(whole, tenth, form, distractor):
    """一米五 is 1.5 m, 两米半 2.5 m, "one and a half metres" 1.5; the gate number beside it stays its own."""
    half = form in ("zh_half", "en_half")
    said = {"zh_tenths": f"{zh_number(whole)}米{ZH_DIGITS[tenth]}", "zh_half": f"{zh_number(whole)}米半",
            "en_half": f"{en_number(whole)} and a half metres", "digits": f"{whole}.{tenth} m"}[form]
    text = (f"{distractor}号门那边，往前走{said}" if form.startswith("zh")
            else f"at gate {distractor} move forward {said}")
    value = f"{whole}.5" if half else f"{whole}.{tenth}"
    assert numbers_said(text) == [str(distractor), value]
    outcome = Outcome(OK, EDGE, "Moving forward.", "en-US", intent="robot_move",
                      slots={"direction": "forward", "distance": value})
    assert check_answer(outcome, text, SCHEMA).slots == {"direction": "forward", "distance": value}


def test_a_widened_slot_is_replaced_in_the_reply_where_it_stands_alone():
    """A decoder reply that says the cut value inside another word keeps that word ("the coot box", session 32)."""
    text = "Open the boot, please, the cake boxes go in there."
    outcome = Outcome(OK, EDGE, "Placing the coot box at the c.", "en-US", intent="robot_place",
                      slots={"object": "the c", "location": "the c"})
    checked = check_answer(outcome, text, SCHEMA)
    assert checked.slots == {"object": "the cake", "location": "the cake"}
    assert checked.text == "Placing the coot box at the cake."


@pytest.mark.parametrize("text, copied, said", [
    ("call Zoë please", "Zo", "Zoë"), ("Play AC/DC", "C", "AC"), ("navigate to Müllerstraße 5", "Müllerstra",
    "Müllerstraße"), ("call Ren and Renée", "Ren", "Ren"), ("给周杰伦打电话", "周杰", "周杰")])
def test_a_text_slot_that_cuts_a_latin_word_is_widened(text, copied, said):
    outcome = Outcome(OK, EDGE, f"Calling {copied}.", "en-US", intent="call", slots={"contact": copied})
    checked = check_answer(outcome, text, SCHEMA)
    assert checked.slots == {"contact": said} and said in checked.text
    assert (said != copied) == any("cut a word" in n for n in checked.notes)


def test_enum_values_are_no_spans_that_cut_a_word():
    case = {"text": "air condition on please", "intent": "climate", "slots": {"state": "on"}, "lang": "en"}
    assert score([case], [{"intent": "climate", "slots": {"state": "on"}}])["latin_spans_cut"] == 0
    case = {"text": "call Zoë", "intent": "call", "slots": {"contact": "Zoë"}, "lang": "en"}
    assert score([case], [{"intent": "call", "slots": {"contact": "Zo"}}])["latin_spans_cut"] == 1


@pytest.mark.parametrize("text, said", [("move back a metre", ["1"]), ("scoot left half a meter", ["0.5"]),
                                        ("a metre and a half forward", ["1.5"]), ("往后退半米", ["0.5"]),
                                        ("调到二十二度五", ["22.5"]), ("二十二度，5分钟后关", ["22", "5"]),
                                        ("调到22度5分钟后关掉", ["22", "5"]), ("三米五米", ["3", "5"]),
                                        ("make it twenty-ish degrees", ["20"]), ("forward two-ish meters", ["2"]),
                                        ("set it to 21ish", ["21"]), ("I like fish, English and polish", [])])
def test_measures_keep_what_was_said(text, said):
    assert numbers_said(text) == said


@given(st.integers(1, 60), st.sampled_from(["zh", "zh_negative", "en", "en_negative", "digits"]), st.integers(16, 32))
def test_a_number_below_zero_keeps_its_sign(n, form, wanted):
    """零下三十度 / "minus thirty" is -30, so "三十" of it is no temperature to set (test set 36, session 32)."""
    said = {"zh": f"零下{zh_number(n)}度", "zh_negative": f"负{zh_number(n)}度", "en": f"minus {en_number(n)}",
            "en_negative": f"negative {n}", "digits": f"-{n}"}[form]
    weather = f"外面{said}" if form.startswith("zh") else f"it's {said} outside"
    assert numbers_said(weather) == [f"-{n}"] and not is_said(str(n), weather)
    text = f"{weather}，温度调到{zh_number(wanted)}度" if form.startswith("zh") else f"{weather}, set it to {wanted}"
    assert numbers_said(text) == [f"-{n}", str(wanted)]
    lang = "zh-CN" if form.startswith("zh") else "en-US"
    assert check_answer(temperature(str(n), lang), weather, SCHEMA).intent == "none"  # the remark sets nothing
    assert check_answer(temperature(str(wanted), lang), text, SCHEMA).slots == {"temperature": str(wanted)}


@pytest.mark.parametrize("text, said", [("move 5-10 metres", ["5", "10"]), ("the t-20 model", ["20"]),
                                        ("机器人去负一楼", ["-1"]), ("调到二十二度", ["22"])])
def test_a_hyphen_inside_words_or_ranges_is_no_minus_sign(text, said):
    assert numbers_said(text) == said


@given(st.integers(0, 99), st.sampled_from(["zh-CN", "en-US"]))
def test_range_is_enforced_never_clamped(n, language):
    said = zh_number(n) if language == "zh-CN" else en_number(n)
    text = f"把温度调到{said}度" if language == "zh-CN" else f"set the temperature to {said}"
    outcome = check_answer(temperature(str(n), language), text, SCHEMA)
    if 16 <= n <= 32:
        assert outcome.intent == "set_temperature" and outcome.slots == {"temperature": str(n)}
    else:
        assert outcome.intent == "none" and outcome.slots == {}
        assert "16" in outcome.text and "32" in outcome.text and str(n) in outcome.text


@given(st.integers(0, 40), st.integers(0, 40))
def test_a_number_not_said_is_never_published(said, written):
    text = f"move forward {en_number(said)} meters"
    outcome = Outcome(OK, CLOUD, f"Moving forward {written} metres.", "en-US", intent="robot_move",
                      slots={"direction": "forward", "distance": str(written)})
    checked = check_answer(outcome, text, SCHEMA)
    if said <= 20:  # the one number said replaces the one written, and the reply says it too
        assert checked.slots == {"direction": "forward", "distance": str(said)} and str(said) in checked.text
    else:
        assert checked.intent == "none" and "20" in checked.text


def test_several_numbers_and_a_wrong_one_asks_again():
    outcome = check_answer(temperature("25"), "take exit 12 then set the temperature to 21", SCHEMA)
    assert outcome.intent == "none" and "temperature" in outcome.text and "again" in outcome.text


def test_ranges_are_checked_in_the_schema():
    base = {"intents": {"none": {}, "go": {"slots": {"d": {"type": "number", "min": 0, "max": 5}}}}}
    assert parse_schema(base)["go"].slots[0].in_range(5) and not parse_schema(base)["go"].slots[0].in_range(5.5)
    for bad, problem in [({"type": "text", "min": 1}, "only number slots"), ({"type": "number", "min": "a"}, "number"),
                         ({"type": "number", "min": 3, "max": 1}, "greater than")]:
        with pytest.raises(SchemaError, match=problem):
            parse_schema({"intents": {"none": {}, "go": {"slots": {"d": bad}}}})
    with pytest.raises(SchemaError, match="names no slot"):
        parse_schema({"intents": {"none": {}, "go": {"confirm": {"en": "Go to {place}?"}}}})


# ---- routing ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, declined", [("Sorry, I can't do that yet.", True),
                                            ("抱歉，这个我暂时还做不到。", True),
                                            ("Hello! How can I help you?", False), ("不客气。", False)])
def test_declines_are_told_from_small_talk(text, declined):
    assert is_decline(Outcome(OK, EDGE, text, "en-US")) is declined
    assert not is_decline(Outcome(OK, EDGE, text, "en-US", intent="navigate"))


def spoken(form: str, marker: str, fallback: dict[str, str]):
    """The number writer of form, and marker if it is in form's script (else form's fallback marker)."""
    if marker.strip(" ，,").isascii() == (form == "zh"):
        marker = fallback[form]
    return {"zh": zh_number, "en": en_number, "digits": str}[form], marker


@given(st.integers(16, 32), st.integers(16, 32), st.sampled_from(["zh", "en", "digits"]),
       st.sampled_from([", no, make that ", " no wait ", " I mean ", "，不对，", " 不 ", "，我是说"]))
def test_a_self_correction_gives_the_corrected_number(first, second, form, marker):
    say_, marker = spoken(form, marker, {"zh": "，不对，", "en": ", no, make that ", "digits": " no wait "})
    text = (f"把温度调到{say_(first)}{marker}{say_(second)}度" if form == "zh"
            else f"set the temperature to {say_(first)}{marker}{say_(second)}")
    outcome = check_answer(temperature(str(first), "zh-CN" if form == "zh" else "en-US"), text, SCHEMA)
    assert outcome.intent == "set_temperature" and outcome.slots == {"temperature": str(second)}, text


@given(st.integers(1, 20), st.integers(21, 99), st.sampled_from(["zh", "en", "digits"]),
       st.sampled_from([", not ", " not ", ", instead of ", "，而不是", "而不是"]))
def test_a_number_rejected_as_it_is_said_gives_the_one_before(kept, rejected, form, marker):
    """"move right 3 metres, not 30": a model that copies 30 publishes 3 (and the range check never sees 30)."""
    say_, marker = spoken(form, marker, {"zh": "，而不是", "en": ", not ", "digits": " not "})
    text = (f"往右走{say_(kept)}米{marker}{say_(rejected)}米" if form == "zh"
            else f"move right {say_(kept)} metres{marker}{say_(rejected)}")
    outcome = Outcome(OK, EDGE, f"Moving right {rejected} metres.", "en-US", intent="robot_move",
                      slots={"direction": "right", "distance": str(rejected)})
    checked = check_answer(outcome, text, SCHEMA)
    assert checked.intent == "robot_move" and checked.slots == {"direction": "right", "distance": str(kept)}, text
    assert str(kept) in checked.text


def test_a_bare_bu_shi_stays_a_self_correction():
    """"二十五呃不是二十三" corrects 25 to 23; "三米而不是五米" rejects 5."""
    assert check_answer(temperature("25", "zh-CN"), "温度调到二十五呃不是二十三", SCHEMA).slots == {"temperature": "23"}
    outcome = Outcome(OK, EDGE, "好的，向前移动5米。", "zh-CN", intent="robot_move",
                      slots={"direction": "forward", "distance": "5"})
    assert check_answer(outcome, "往前走三米而不是五米", SCHEMA).slots == {"direction": "forward", "distance": "3"}


def test_shi_bu_shi_asks_and_corrects_nothing():
    """"你是不是跟新闻里那个一样" asks (test set 46): the 2 m said before it stands (cn2an reads 一样 as 1样)."""
    outcome = Outcome(OK, EDGE, "好的，向前移动2米。", "zh-CN", intent="robot_move",
                      slots={"direction": "forward", "distance": "2"})
    text = "机器人往前走两米，我看看你是不是跟新闻里那个一样能跑"
    assert check_answer(outcome, text, SCHEMA).slots == {"direction": "forward", "distance": "2"}


def test_motion_asked_first_is_counted_apart_from_motion_acted_on():
    cases = [{"text": t, "intent": i, "slots": {}, "lang": "en"} for t, i in
             [("the kitchen is a mess", "none"), ("what if you went left", "none"), ("go left", "robot_move")]]
    predictions = [{"intent": "robot_go_to", "slots": {}, "asked": True}, {"intent": "robot_move", "slots": {}},
                   {"intent": "robot_move", "slots": {}, "asked": True}]
    result = score(cases, predictions)
    assert (result["motion_where_decline"], result["motion_asked_where_decline"], result["motion_right_asked"]) == (
        1, 1, 1)


@pytest.mark.parametrize("text, said", [
    ("机器人往前走两米，我看看你是不是跟新闻里那个一样能跑", ["2"]),  # 一样 is "the same" (test set 46)
    ("往前挪一下", []), ("往左一点点", []), ("一直往前走十米", ["10"]), ("我们一起去厨房", []),
    ("统一调到二十度", ["20"]),
    ("调低一点五度", ["1.5"]), ("调到二十一度", ["21"]), ("往后退一米", ["1"]), ("一米一", ["1.1"]),
    ("机器人去负一楼", ["-1"]), ("一点钟出发", ["1"]),
])
def test_a_one_that_counts_nothing_is_no_number(text, said):
    """cn2an writes every 一 as 1; 一样, 一直, 一下, 一起 say no number, 一米, 一点五, 负一楼 do."""
    assert numbers_said(text) == said


def test_a_distance_of_one_is_not_read_from_a_bit():
    """"往前挪一下" (move forward a bit) says no distance: a 1 written there is not acted on."""
    checked = check_answer(Outcome(OK, EDGE, "好的，向前移动1米。", "zh-CN", intent="robot_move",
                                   slots={"direction": "forward", "distance": "1"}), "往前挪一下", SCHEMA)
    assert checked.slots.get("distance") != "1"
