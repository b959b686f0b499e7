"""Write test/data/golden_default.json: the shipped model's greedy outputs for the golden prompts.

    PYTHONPATH=. .venv/bin/python test/make_golden.py   (after a retrained model is committed to models/default)
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROMPTS = ["导航到首都机场", "把温度调到二十二度", "停下", "给张伟打电话", "你好", "播放周杰伦的晴天",
           "navigate to Golden Gate Park", "pick up the red box", "stop right now", "stop the navigation",
           "turn on the AC", "what's the weather like today",
           # since model v10 (the understanding model decides intent and slots)
           "call Renée", "我想听周杰伦的歌", "turn the fan up to 4", "put the red cup on the table", "come here",
           "把温度调到四十五度", "send an email to Bob", "幫我打電話俾阿明"]


def header_constraint(assistant, text: str):
    """The header constraint the assistant decodes `text` under (the understanding model's header forced)."""
    from globalgen_ros.runtime.format import prompt_tokens

    nlu = assistant.understanding.predict(text) if assistant.understanding is not None else None
    return assistant.header_constraint(nlu, prompt_tokens(assistant.tokenizer, text)[1])[1]


def main() -> int:
    import torch

    from globalgen_ros.assistant import Assistant
    from globalgen_ros.model.export import load_model
    from globalgen_ros.model.greedy import generate

    model_dir = ROOT / "models" / "default"
    assistant = Assistant(str(model_dir), strategy="ar", calibration=None)
    torch.set_num_threads(2)
    model = load_model(model_dir)
    rows = []
    for text in PROMPTS:
        r = assistant.respond(text)
        torch_ids = generate(model, assistant.tokenizer, assistant.schema, text, constraint=header_constraint(
            assistant, text))
        rows.append({"text": text, "intent": r.intent, "slots": r.slots, "reply": r.text, "token_ids": r.token_ids,
                     "torch_agrees": torch_ids == r.token_ids})
    out = ROOT / "test" / "data" / "golden_default.json"
    out.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{out}: {len(rows)} prompts, torch fp32 agrees on {sum(r['torch_agrees'] for r in rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
