"""`globalgen eval`, `ask` and `bench` (decode, cache, node) on the shipped model; bad input gives a clear error."""

import json

from model_fixtures import DEFAULT_MODEL, REPO_ROOT

from globalgen_ros.cli.main import main
from globalgen_ros.decoding.calibration import CostModel

NATURAL = REPO_ROOT / "globalgen_ros" / "corpus" / "natural_cases.jsonl"


def test_eval_json_and_predictions(tmp_path, capsys):
    preds = tmp_path / "preds.jsonl"
    rc = main(["eval", str(NATURAL), "--json", "--limit", "6", "--predictions", str(preds),
               "--model-dir", str(DEFAULT_MODEL)])
    assert rc == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["n"] == 6 and 0 <= result["intent_accuracy"] <= 1 and 0 <= result["slot_accuracy"] <= 1
    rows = [json.loads(line) for line in preds.read_text().splitlines()]
    assert len(rows) == 6 and {"intent", "slots", "response"} <= set(rows[0])


def test_intent_interval_resamples_whole_templates():
    """Errors that cluster on a template widen the interval; with no templates each case is its own cluster."""
    from globalgen_ros.scoring import score

    def case(template, right):
        return {"text": "x", "intent": "stop", "slots": {}, "lang": "en", "template": template}, \
            {"intent": "stop" if right else "none", "slots": {}}

    spread = [case(f"t{i}", i % 2 == 0) for i in range(20) for _ in range(5)]  # 10 templates all wrong
    mixed = [case(f"t{i}", j != 0) for i in range(20) for j in range(5)]  # one wrong case per template
    lo_s, hi_s = score(*zip(*spread, strict=True))["intent_accuracy_ci95"]
    lo_m, hi_m = score(*zip(*mixed, strict=True))["intent_accuracy_ci95"]
    assert lo_s < 0.5 < hi_s and hi_s - lo_s > 0.2
    assert lo_m == hi_m == 0.8  # every template scores 80 %: resampling templates cannot move it
    untagged = [({**c, "template": None}, p) for c, p in spread]
    lo_u, hi_u = score(*zip(*untagged, strict=True))["intent_accuracy_ci95"]
    assert lo_s < lo_u < 0.5 < hi_u < hi_s  # per-case clusters: a narrower interval


def test_eval_expects_the_node_to_decline_an_out_of_range_number(tmp_path, capsys):
    cases = tmp_path / "cases.jsonl"
    rows = [{"text": "set the temperature to 35 degrees", "intent": "set_temperature", "slots": {"temperature": 35}},
            {"text": "把温度调到二十二度", "intent": "set_temperature", "slots": {"temperature": 22}}]
    cases.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    preds = tmp_path / "preds.jsonl"
    assert main(["eval", str(cases), "--json", "--predictions", str(preds), "--model-dir", str(DEFAULT_MODEL)]) == 0
    answered = [json.loads(line) for line in preds.read_text().splitlines()]
    assert [a["expected_intent"] for a in answered] == ["none", "set_temperature"]
    assert answered[0]["intent"] == "none" and "16" in answered[0]["response"]  # declined, saying the range
    assert main(["eval", str(cases), "--json", "--model-only", "--predictions", str(preds),
                 "--model-dir", str(DEFAULT_MODEL)]) == 0
    assert [json.loads(line)["expected_intent"] for line in preds.read_text().splitlines()] == ["set_temperature"] * 2


def test_eval_rejects_a_bad_cases_file(tmp_path, capsys):
    bad = tmp_path / "cases.jsonl"
    bad.write_text('{"text": "stop", "intent": "stop", "slots": {}}\n{"text": 5}\n')
    assert main(["eval", str(bad), "--model-dir", str(DEFAULT_MODEL)]) == 2
    assert "cases.jsonl:2" in capsys.readouterr().err


def test_ask_json(capsys):
    assert main(["ask", "导航到首都机场", "--json", "--strategy", "ar", "--model-dir", str(DEFAULT_MODEL)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["intent"] == "navigate" and out["language"] == "zh" and out["tokens"] > 0


def test_ask_empty_text_is_a_clear_error(capsys):
    assert main(["ask", "   ", "--strategy", "ar", "--model-dir", str(DEFAULT_MODEL)]) == 2
    assert "empty" in capsys.readouterr().err


def test_decode_bench_json_line_and_ceiling(capsys, tmp_path):
    # a fixed cost curve of this CPU's shape (a forward's base cost dominates): a curve measured on a loaded machine
    # may price the 64-token tree out and split the perfect draft over two forwards
    calibration = tmp_path / "cost.json"
    CostModel.flat(per_token_ms=0.05, base_ms=2.0).save(calibration)
    argv = ["bench", "-n", "4", "--warmup", "1", "--no-transformers", "--calibration", str(calibration), "--json",
            "--model-dir", str(DEFAULT_MODEL)]
    assert main(argv) == 0
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert line["n"] == 4 and line["identical"] is True
    for key in ("speedup_parallel", "tpf_parallel", "speedup_confident", "tpf_confident", "intent_accuracy_confident"):
        assert line[key] > 0
    ceiling = line["ceiling"]
    assert set(ceiling) == {"parallel", "oracle", "oracle_deep", "oracle_1fwd"}
    assert ceiling["oracle_1fwd"]["forwards"] == 1  # perfect drafts, a tree that holds the whole answer
    assert ceiling["oracle"]["forwards"] <= ceiling["parallel"]["forwards"]


def test_cache_bench_json_line(capsys):
    argv = ["bench", "--suite", "cache", "-n", "20", "--sessions", "300", "--json", "--model-dir", str(DEFAULT_MODEL)]
    assert main(argv) == 0
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for key in ("followup_speedup", "peak_bytes", "budget_bytes", "warm_agreement"):
        assert key in line
    assert line["sessions"] == 4 and line["simulated_sessions"] == 300
    assert line["fp32_reuse_identical"] == 1.0  # reusing fp32 K/V gives exactly the recomputed replies
    assert line["peak_bytes"] <= line["budget_bytes"] and line["reuse_ratio"] > 0.5


def test_node_bench_json_line(capsys):
    """The node benchmark starts globalgen_node, answers every prompt under each strategy, times the stop reflex."""
    argv = ["bench", "--suite", "node", "-n", "4", "--warmup", "1", "--json", "--model-dir", str(DEFAULT_MODEL)]
    assert main(argv) == 0
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(line["strategies"]) == {"ar", "parallel", "confident"}
    for name, s in line["strategies"].items():
        assert s["n"] == 4 and s["ok"] == 4, (name, s)  # every prompt answered OK by the edge model
    assert 0 < line["p50_ms"] <= line["p95_ms"] and line["stop_ms"] > 0


def test_model_report_scores_the_extra_case_sets(tmp_path, capsys):
    """`model.report --also NAME=FILE` records each extra set's scores and the sha256 of its cases."""
    from globalgen_ros.model.report import main as report
    from globalgen_ros.runtime.artifacts import sha256_file

    lines = NATURAL.read_text(encoding="utf-8").splitlines()
    held, more = tmp_path / "held.jsonl", tmp_path / "more.jsonl"
    held.write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    more.write_text("\n".join(lines[3:8]) + "\n", encoding="utf-8")
    manifest = (DEFAULT_MODEL / "manifest.json").read_bytes()
    assert report(["--model-dir", str(DEFAULT_MODEL), "--held-out", str(held), "--natural", str(held),
                   "--also", f"bigger={more}", "--agreement-n", "2", "--no-write"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["held_out"]["n"] == 3 and result["bigger"]["n"] == 5
    assert result["bigger"]["cases_sha256"] == sha256_file(more) and result["fp32_vs_int8"]
    assert (DEFAULT_MODEL / "manifest.json").read_bytes() == manifest  # --no-write leaves it alone


def test_eval_stop_list_counts_word_list_and_model_stops(tmp_path, capsys):
    lists = tmp_path / "stops.json"
    lists.write_text(json.dumps({"urgent": {"en": ["stop stop stop!", "whoa, hold it!"], "zh": ["停停停"]},
                                 "near_miss": {"en": ["stop the music"], "zh": ["停车场在哪"]}}, ensure_ascii=False))
    assert main(["eval", str(lists), "--stop-list", "--json", "--model-dir", str(DEFAULT_MODEL)]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["urgent/en"] == {"n": 2, "words": 2, "ngrams": 2, "reflex": 2, "words_or_model": 2, "served": 2}
    assert report["urgent/zh"]["words"] == 1
    assert report["near_miss/en"]["reflex"] == 0 and report["near_miss/zh"]["reflex"] == 0
    assert all(max(r["words"], r["ngrams"]) <= r["reflex"] <= r["words_or_model"] <= r["n"]
               and r["reflex"] <= r["served"] <= r["n"] for r in report.values())


def test_understand_refuses_a_ship_folder_that_is_no_model_directory_before_training(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["understand", "--out", str(out), "--ship", str(tmp_path / "missing")]) == 2
    assert "no model directory" in capsys.readouterr().err and not out.exists()
