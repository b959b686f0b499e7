"""Model directory checks: missing or corrupt files give ModelArtifactError naming the file and the fix."""

import json
import shutil

import pytest

from globalgen_ros.runtime.artifacts import ENV_MODEL_DIR, ModelArtifactError, default_model_dir, load_artifacts
from globalgen_ros.runtime.onnx_model import OnnxModel


@pytest.fixture
def model_copy(tmp_path):
    """A writable copy of the shipped model directory (only the files the run time opens)."""
    src = default_model_dir()
    dst = tmp_path / "model"
    dst.mkdir()
    for name in ("manifest.json", "config.json", "tokenizer.json", "model.int8.onnx", "heads.int8.onnx"):
        shutil.copyfile(src / name, dst / name)
    return dst


def test_shipped_model_passes_its_manifest():
    art = load_artifacts()
    assert art.config["num_hidden_layers"] > 0


@pytest.mark.parametrize("name", ["model.int8.onnx", "tokenizer.json", "manifest.json", "heads.int8.onnx"])
def test_missing_file_is_named(model_copy, name):
    (model_copy / name).unlink()
    with pytest.raises(ModelArtifactError, match=name.replace(".", r"\.")) as err:
        load_artifacts(model_copy)
    assert "missing" in str(err.value) and "export" in str(err.value)


def test_truncated_and_flipped_files_are_corrupt(model_copy):
    path = model_copy / "model.int8.onnx"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelArtifactError, match=r"corrupt: .*model\.int8\.onnx has \d+ bytes"):
        load_artifacts(model_copy)
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # same size, one bit off
    with pytest.raises(ModelArtifactError, match=r"model\.int8\.onnx does not match its sha256"):
        load_artifacts(model_copy)


def test_unreadable_onnx_is_reported_by_name(model_copy):
    path = model_copy / "heads.int8.onnx"
    path.write_bytes(b"not an onnx file")
    manifest = json.loads((model_copy / "manifest.json").read_text())
    manifest["files"].pop("heads.int8.onnx")  # a manifest that does not cover it: ORT itself must fail clearly
    (model_copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelArtifactError, match=r"heads\.int8\.onnx"):
        OnnxModel(str(model_copy))


def test_a_decoder_of_another_interface_is_named_with_the_fix(model_copy):
    shutil.copyfile(model_copy / "heads.int8.onnx", model_copy / "model.int8.onnx")  # valid ONNX, other inputs
    manifest = json.loads((model_copy / "manifest.json").read_text())
    manifest["files"].pop("model.int8.onnx")
    (model_copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelArtifactError, match=r"model\.int8\.onnx has the inputs \['hidden'\].*re-export"):
        OnnxModel(str(model_copy))


def test_model_dir_resolution_order(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_MODEL_DIR, str(tmp_path))
    assert default_model_dir() == tmp_path
    assert default_model_dir("/explicit") == default_model_dir("/explicit").__class__("/explicit")
    monkeypatch.delenv(ENV_MODEL_DIR)
    assert default_model_dir().parts[-2:] == ("models", "default")


def test_installed_scripts_find_the_model_without_sourcing_ros(monkeypatch, tmp_path):
    """Outside a checkout and with AMENT_PREFIX_PATH unset, the model installed under sys.prefix/share is used."""
    from globalgen_ros.runtime import artifacts

    monkeypatch.delenv(ENV_MODEL_DIR, raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    monkeypatch.setattr(artifacts, "_REPO_ROOT", tmp_path / "site-packages")
    monkeypatch.setattr(artifacts.sys, "prefix", str(tmp_path / "venv"))
    assert default_model_dir() == tmp_path / "site-packages" / "models" / "default"  # nothing installed: named
    installed = tmp_path / "venv" / "share" / "globalgen_ros" / "models" / "default"
    installed.mkdir(parents=True)
    assert default_model_dir() == installed
