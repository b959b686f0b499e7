"""The intent schema loads, and a bad schema fails with a message naming the file and the entry."""

import pytest

from globalgen_ros.schema import SchemaError, load_schema, parse_schema

ISSUE_INTENTS = ["navigate", "cancel_navigation", "set_temperature", "climate", "window", "play_music",
                 "media_control", "call", "seat_heating", "robot_move", "robot_go_to", "robot_pick", "robot_place",
                 "stop", "none"]


def test_shipped_schema_has_the_contract_intents():
    schema = load_schema()
    assert schema.names == ISSUE_INTENTS
    assert [s.name for s in schema["set_temperature"].slots] == ["temperature", "zone"]
    assert schema["set_temperature"].slot("temperature").type == "number"
    assert schema["set_temperature"].slot("zone").values == ("driver", "passenger", "all")
    assert schema["set_temperature"].slot("zone").optional
    assert schema["climate"].slot("state").values == ("on", "off")  # YAML 1.1 booleans stay strings
    assert schema["stop"].safety and not schema["navigate"].safety
    assert schema["call"].requires_confirmation
    assert schema["none"].slots == ()


def test_validate_output():
    schema = load_schema()
    assert schema.validate_output("window", {"action": "open", "position": "rear"}) == []
    assert schema.validate_output("fly", {}) == ["unknown intent 'fly'"]
    assert "not one of" in schema.validate_output("window", {"action": "explode"})[0]
    assert "no slot" in schema.validate_output("window", {"speed": "1"})[0]
    assert "not a number" in schema.validate_output("robot_move", {"direction": "left", "distance": "far"})[0]
    assert schema.validate_output("robot_move", {"direction": "left", "distance": "1.5"}) == []
    for bad in ("1.", ".5", "1.2.3", "-1", "1,5"):
        assert "not a number" in schema.validate_output("robot_move", {"direction": "left", "distance": bad})[0]


@pytest.mark.parametrize("doc, message", [
    ({}, "non-empty `intents`"),
    ({"intents": {"go": {}}}, "`none` is required"),
    ({"intents": {"none": {}, "Go": {}}}, "intents.Go: intent name must match"),
    ({"intents": {"none": {}, "go": {"slots": {"x": {"type": "string"}}}}}, "intents.go.slots.x: type must be"),
    ({"intents": {"none": {}, "go": {"slots": {"x": {"type": "enum"}}}}}, "needs a non-empty list"),
    ({"intents": {"none": {}, "go": {"slots": {"x": {"type": "enum", "values": ["a", "a"]}}}}}, "duplicate"),
    ({"intents": {"none": {}, "go": {"slots": {"x": {"type": "text", "values": ["a"]}}}}}, "only enum slots"),
    ({"intents": {"none": {}, "go": {"colour": "red"}}}, "unknown keys ['colour']"),
    ({"intents": {"none": {}, "go": {"safety": "yes"}}}, "intents.go.safety: must be true or false"),
    ({"intents": {"none": {"slots": {"x": {"type": "text"}}}}}, "fallback intent takes no slots"),
    ({"intents": {"none": {}, "go": {"confirm_below": 1.5}}}, "intents.go.confirm_below: must be a confidence"),
    ({"intents": {"none": {}, "go": {"confirm_below": True}}}, "intents.go.confirm_below: must be a confidence"),
    ({"intents": {"none": {}, "go": {"confirm": {"en": []}}}}, "intents.go.confirm: expected a mapping"),
    ({"intents": {"none": {}, "go": {"confirm": {"en": ["Go to {place}?"]}}}}, "names no slot of go"),
    ({"intents": {"none": {}, "go": {"slots": {"x": {"type": "text", "said": {"zh": {"a": "甲"}}}}}}},
     "intents.go.slots.x.said: expected, on an enum slot"),
    ({"intents": {"none": {}, "go": {"slots": {"x": {"type": "enum", "values": ["a"], "said": {"zh": {"b": "乙"}}}}}}},
     "intents.go.slots.x.said"),
])
def test_bad_schema_is_rejected_with_a_clear_message(doc, message):
    with pytest.raises(SchemaError) as e:
        parse_schema(doc, "bad.yaml")
    assert str(e.value).startswith("bad.yaml: ")
    assert message in str(e.value)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(SchemaError, match="schema file not found"):
        load_schema(tmp_path / "nope.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("intents: [unclosed\n")
    with pytest.raises(SchemaError, match="not valid YAML"):
        load_schema(broken)


def test_confirm_questions_take_the_first_form_whose_slots_are_said():
    schema = parse_schema({"intents": {"none": {}, "move": {
        "confirm": {"en": ["Move {dir} {dist} m?", "Move {dir}?"], "zh": "要{dir}移动吗？"},
        "slots": {"dir": {"type": "enum", "values": ["left", "right"], "said": {"zh": {"left": "向左"}}},
                  "dist": {"type": "number", "optional": True}}}}})
    move = schema["move"]
    assert move.question("en", {"dir": "left", "dist": "2"}) == "Move left 2 m?"
    assert move.question("en", {"dir": "left"}) == "Move left?"
    assert move.question("zh", {"dir": "left"}) == "要向左移动吗？"
    assert move.question("zh", {"dir": "right"}) == "要right移动吗？"  # no word given: the value itself
    assert move.question("en", {}) is None and move.confirm_below == 0.0
