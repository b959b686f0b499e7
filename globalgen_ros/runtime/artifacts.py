"""Find and check a model directory (docs/architecture.md, "Model artifacts").

A model directory holds `config.json`, `tokenizer.json`, `model.int8.onnx`, `heads.int8.onnx` (what the run
time needs) plus the fp16 safetensors and `manifest.json` with the sha256 and size of every file. Loading
checks the files the run time opens against the manifest, so a truncated or corrupt download fails with a
message naming the file instead of a crash deep inside ONNX Runtime.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

ENV_MODEL_DIR = "GLOBALGEN_MODEL_DIR"
RUNTIME_FILES = ("config.json", "tokenizer.json", "model.int8.onnx", "heads.int8.onnx")
_REPO_ROOT = Path(__file__).resolve().parents[2]


class ModelArtifactError(RuntimeError):
    """A model file is missing or corrupt; the message names the file and says what to do."""


@dataclass
class ModelArtifacts:
    """Paths and parsed metadata of a checked model directory."""

    root: Path
    config: dict
    manifest: dict = field(default_factory=dict)
    optional: dict[str, Path] = field(default_factory=dict)  # e.g. drafts.npz, calibration.json

    def path(self, name: str) -> Path:
        return self.root / name


def default_model_dir(explicit: str | os.PathLike | None = None) -> Path:
    """Resolve the model directory: explicit path, $GLOBALGEN_MODEL_DIR, the checkout, then the share dir."""
    if explicit:
        return Path(explicit).expanduser()
    if os.environ.get(ENV_MODEL_DIR):
        return Path(os.environ[ENV_MODEL_DIR]).expanduser()
    return shipped_model_dir()


def is_imported(model_dir: str | os.PathLike | None = None) -> bool:
    """Return True if the model directory holds an imported chat model (`globalgen import`: a manifest with a
    `chat` entry); False for the project's own model and for anything unreadable (load_artifacts reports it)."""
    try:
        manifest = json.loads((default_model_dir(model_dir) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(manifest, dict) and isinstance(manifest.get("chat"), dict)


def shipped_model_dir() -> Path:
    """Return the shipped model directory (models/default): the checkout's, else the installed share dir."""
    source_tree = _REPO_ROOT / "models" / "default"
    if source_tree.is_dir():  # running from a checkout: its models win over an installed (maybe older) copy
        return source_tree
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory

        try:
            share = Path(get_package_share_directory("globalgen_ros")) / "models" / "default"
            if share.is_dir():
                return share
        except (PackageNotFoundError, ValueError, OSError):  # OSError: AMENT_PREFIX_PATH unset
            pass
    except ImportError:
        pass
    prefix_share = Path(sys.prefix) / "share" / "globalgen_ros" / "models" / "default"
    if prefix_share.is_dir():  # the venv's console scripts run without AMENT_PREFIX_PATH (nothing is sourced)
        return prefix_share
    return source_tree


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _hint(root: Path) -> str:
    return (f"Re-export the model (`globalgen export --out {root}`), restore it from git (`git checkout -- {root}`), "
            f"or point {ENV_MODEL_DIR} / model_dir at another model directory.")


def check_file(root: Path, name: str, entry: dict | None, verify_hash: bool) -> Path:
    """Return root/name after checking that it exists and matches its manifest entry."""
    path = root / name
    if not path.is_file():
        raise ModelArtifactError(f"model file missing: {path}. {_hint(root)}")
    if entry is None:
        return path
    size = path.stat().st_size
    if "size" in entry and size != entry["size"]:
        raise ModelArtifactError(f"model file corrupt: {path} has {size} bytes, manifest.json says {entry['size']}. "
                                 f"{_hint(root)}")
    if verify_hash and "sha256" in entry and sha256_file(path) != entry["sha256"]:
        raise ModelArtifactError(f"model file corrupt: {path} does not match its sha256 in manifest.json. "
                                 f"{_hint(root)}")
    return path


def load_artifacts(model_dir: str | os.PathLike | None = None, *, verify_hash: bool = True,
                   required: tuple[str, ...] = RUNTIME_FILES) -> ModelArtifacts:
    """Resolve, check and describe a model directory; raise ModelArtifactError naming any bad file."""
    root = default_model_dir(model_dir)
    if not root.is_dir():
        raise ModelArtifactError(f"model directory not found: {root}. {_hint(root)}")
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        raise ModelArtifactError(f"model file missing: {manifest_path} (sha256 and sizes of the artifacts). "
                                 f"{_hint(root)}")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        entries = manifest["files"]
    except (ValueError, KeyError, UnicodeDecodeError) as e:
        raise ModelArtifactError(f"model file corrupt: {manifest_path} is not a valid manifest ({e}). "
                                 f"{_hint(root)}") from e
    for name in required:
        check_file(root, name, entries.get(name), verify_hash)
    optional = {name: check_file(root, name, entry, verify_hash)
                for name, entry in entries.items() if name not in required and (root / name).is_file()}
    try:
        config = json.loads((root / "config.json").read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ModelArtifactError(f"model file corrupt: {root / 'config.json'} is not valid JSON ({e}). "
                                 f"{_hint(root)}") from e
    return ModelArtifacts(root=root, config=config, manifest=manifest, optional=optional)
