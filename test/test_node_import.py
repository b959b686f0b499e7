"""globalgen_node on an imported chat model (`model_dir:=` an import), over real DDS.

The tiny random LLaMA of test_import.py is imported (int8, the default for its grouped-query attention) and the
node is started on it: the shipped understanding model decides intent and slots, the imported model speaks (noise:
it is random), the stop reflex fires without it, and the cloud-off decline of an open question still gets exactly
one final answer.
"""

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gguf")
pytest.importorskip("jinja2")

from node_fixtures import running_node  # noqa: E402
from test_import import make_model, make_tokenizer, write_hf  # noqa: E402

from globalgen_ros.importer.write import import_model  # noqa: E402
from globalgen_ros.msg import Response  # noqa: E402


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    root = tmp_path_factory.mktemp("node_import")
    tok = make_tokenizer()
    model = make_model(tok.get_vocab_size(), 2, True, {"rope_type": "default", "rope_theta": 50000.0}, context=512)
    import_model(write_hf(model, tok, root / "hf"), root / "imported")
    return root / "imported"


def final_and_intents(node, text: str):
    c = node.client
    uid, _ = c.send(text)
    final = c.wait_final(uid, 60.0)
    if final.status == Response.STATUS_OK:
        c.spin_until(lambda: uid in c.intents, 10.0, f"intent of {uid}")
    return final, [m for _, m in c.intents.get(uid, [])], c.finals[uid]


def test_the_node_answers_acts_and_stops_on_an_imported_model(imported):
    with running_node(f"model_dir:={imported}", "cloud.enabled:=false", "max_new_tokens:=12") as node:
        final, intents, finals = final_and_intents(node, "navigate to the park")
        assert (final.status, final.source, final.intent) == (Response.STATUS_OK, "edge", "navigate")
        assert [(i.name, i.source) for i in intents] == [("navigate", "edge")] and len(finals) == 1
        assert final.tokens > 0 and final.strategy == "parallel"

        stop, intents, finals = final_and_intents(node, "stop!")
        assert (stop.source, stop.intent, stop.strategy) == ("reflex", "stop", "reflex")
        assert [i.name for i in intents] == ["stop"] and len(finals) == 1

        declined, intents, finals = final_and_intents(node, "what is the capital of France?")
        assert declined.status == Response.STATUS_OK and declined.intent == "none" and len(finals) == 1
        assert all(i.name == "none" for i in intents)


def test_the_on_board_tier_answers_a_declined_open_question_over_dds(imported):
    """onboard.model_dir:=an import, cloud off: the shipped edge declines an open question, the on-board model answers
    it (source onboard, intent none: nothing acts); a command stays on the edge; Chinese gets the edge's decline."""
    with running_node(f"onboard.model_dir:={imported}", "cloud.enabled:=false", "onboard.max_new_tokens:=12") as node:
        final, intents, finals = final_and_intents(node, "what is the capital of France?")
        assert (final.status, final.source, final.intent) == (Response.STATUS_OK, Response.SOURCE_ONBOARD, "none")
        assert final.text and len(finals) == 1
        assert [(i.name, i.source) for i in intents] == [("none", "onboard")]
        command, intents, _ = final_and_intents(node, "navigate to the park")
        assert (command.source, [i.name for i in intents]) == ("edge", ["navigate"])
        zh, _, finals = final_and_intents(node, "法国的首都是哪里？")
        assert (zh.status, zh.source, zh.intent) == (Response.STATUS_FALLBACK, "node", "none") and len(finals) == 1
