"""Enum surface forms and the replies of every intent in zh and en.

The phrasing templates themselves are data: `phrasings/<intent>.<lang>.yaml` (format: `phrasings.py`).
"""

from __future__ import annotations

from globalgen_ros.corpus.phrasings import Phrasings, load

# surface forms of enum values inside user text
ENUM_SURFACE = {
    "en": {
        "zone": {"driver": ["driver side", "driver's side", "driver seat"], "passenger": ["passenger side",
                 "passenger seat"],
                 "all": ["whole car", "entire cabin", "all zones"]},
        "state": {"on": ["on"], "off": ["off"]},
        "action": {"open": ["open", "roll down", "lower"], "close": ["close", "roll up", "shut", "raise"]},
        "position": {"driver": ["driver", "driver's", "driver side"], "passenger": ["passenger", "passenger side"],
                     "rear": ["rear", "back"], "all": ["all"]},
        "seat": {"driver": ["driver", "driver's", "driver side"], "passenger": ["passenger", "front passenger"]},
        "direction": {"forward": ["forward", "ahead", "forwards"], "backward": ["backward", "back", "backwards"],
                      "left": ["left", "to the left"], "right": ["right", "to the right"]},
    },
    "zh": {
        "zone": {"driver": ["主驾", "主驾驶", "驾驶位"], "passenger": ["副驾", "副驾驶", "乘客那边"],
                 "all": ["全车", "所有区域", "前后排"]},
        "state": {"on": ["打开", "开", "开启"], "off": ["关闭", "关掉", "关上", "关"]},
        "action": {"open": ["打开", "开", "摇下", "降下"], "close": ["关上", "关闭", "关", "摇上", "升起"]},
        "position": {"driver": ["主驾", "主驾驶", "左前"], "passenger": ["副驾", "副驾驶", "右前"],
                     "rear": ["后排", "后面", "后座"], "all": ["所有"]},
        "seat": {"driver": ["主驾", "主驾驶", "驾驶座"], "passenger": ["副驾", "副驾驶", "乘客"]},
        "direction": {"forward": ["前", "前面"], "backward": ["后", "后面"], "left": ["左", "左边"],
                      "right": ["右", "右边"]},
    },
}
# which enum slots a template may fill at random (the others need fixed values)
RANDOM_ENUMS = {"zone", "state", "action", "position", "seat", "direction"}

# enum values inside replies
REPLY_ENUM = {
    "en": {"zone": {"driver": "driver side", "passenger": "passenger side", "all": "whole cabin"},
           "position": {"driver": "driver's", "passenger": "passenger", "rear": "rear", "all": "all"},
           "seat": {"driver": "driver's", "passenger": "passenger"},
           "action": {"open": "Opening", "close": "Closing"}},
    "zh": {"zone": {"driver": "主驾", "passenger": "副驾", "all": "全车"},
           "position": {"driver": "主驾", "passenger": "副驾", "rear": "后排", "all": "所有"},
           "seat": {"driver": "主驾", "passenger": "副驾"},
           "action": {"open": "打开", "close": "关闭"},
           "direction": {"forward": "前", "backward": "后", "left": "左", "right": "右"}},
}
MEDIA_REPLY = {
    "en": {"pause": "Pausing the music.", "resume": "Resuming playback.", "next": "Skipping to the next track.",
           "previous": "Going back to the previous track.", "volume_up": "Turning the volume up.",
           "volume_down": "Turning the volume down."},
    "zh": {"pause": "好的，已暂停。", "resume": "好的，继续播放。", "next": "好的，下一首。",
           "previous": "好的，上一首。",
           "volume_up": "好的，音量调大。", "volume_down": "好的，音量调小。"},
}


# The intents with a built-in reply here: the ones the shipped decoder was trained to answer.
BUILT_IN = ("navigate", "cancel_navigation", "set_temperature", "climate", "window", "play_music", "media_control",
            "call", "seat_heating", "robot_move", "robot_go_to", "robot_pick", "robot_place", "stop")


def reply(intent: str, lang: str, slots: dict[str, str], phrasings: Phrasings | None = None) -> str:
    """Return the spoken reply that confirms the action and repeats the slot values."""
    s, e = slots, REPLY_ENUM[lang]
    if lang == "en":
        on_off = "on" if s.get("state") == "on" else "off"
        r = {
            "navigate": lambda: f"Okay, navigating to {s['destination']}.",
            "cancel_navigation": lambda: "Okay, navigation cancelled.",
            "set_temperature": lambda: (f"Setting the {e['zone'][s['zone']]} temperature to {s['temperature']} degrees."
                                        if "zone" in s else f"Setting the temperature to {s['temperature']} degrees."),
            "climate": lambda: f"Turning the air conditioning {on_off}.",
            "window": lambda: (f"{e['action'][s['action']]} all windows." if s.get("position") == "all" else
                               f"{e['action'][s['action']]} the {e['position'][s['position']]} window."
                               if "position" in s else f"{e['action'][s['action']]} the window."),
            "play_music": lambda: f"Playing {s['query']}.",
            "media_control": lambda: MEDIA_REPLY["en"][s["action"]],
            "call": lambda: f"Calling {s['contact']}.",
            "seat_heating": lambda: (f"Turning the {e['seat'][s['seat']]} seat heating {on_off}." if "seat" in s
                                     else f"Turning the seat heating {on_off}."),
            "robot_move": lambda: (f"Moving {s['direction']} {s['distance']} meters." if "distance" in s
                                   else f"Moving {s['direction']}."),
            "robot_go_to": lambda: f"Going to {s['location']}.",
            "robot_pick": lambda: f"Picking up {s['object']}.",
            "robot_place": lambda: (f"Placing {s['object']} at {s['location']}." if "object" in s
                                    else f"Placing it at {s['location']}."),
            "stop": lambda: "Stopping now.",
        }
    else:
        on_off = "打开" if s.get("state") == "on" else "关闭"
        r = {
            "navigate": lambda: f"好的，正在导航到{s['destination']}。",
            "cancel_navigation": lambda: "好的，已取消导航。",
            "set_temperature": lambda: (f"好的，{e['zone'][s['zone']]}温度调到{s['temperature']}度。" if "zone" in s
                                        else f"好的，温度调到{s['temperature']}度。"),
            "climate": lambda: f"好的，空调已{on_off}。",
            "window": lambda: (f"好的，正在{e['action'][s['action']]}{e['position'][s['position']]}车窗。"
                               if "position" in s else f"好的，正在{e['action'][s['action']]}车窗。"),
            "play_music": lambda: f"好的，正在播放{s['query']}。",
            "media_control": lambda: MEDIA_REPLY["zh"][s["action"]],
            "call": lambda: f"好的，正在呼叫{s['contact']}。",
            "seat_heating": lambda: (f"好的，{e['seat'][s['seat']]}座椅加热已{on_off}。" if "seat" in s
                                     else f"好的，座椅加热已{on_off}。"),
            "robot_move": lambda: (f"好的，向{e['direction'][s['direction']]}移动{s['distance']}米。" if "distance" in s
                                   else f"好的，向{e['direction'][s['direction']]}移动。"),
            "robot_go_to": lambda: f"好的，正在前往{s['location']}。",
            "robot_pick": lambda: f"好的，正在拿起{s['object']}。",
            "robot_place": lambda: (f"好的，把{s['object']}放到{s['location']}。" if "object" in s
                                    else f"好的，放到{s['location']}。"),
            "stop": lambda: "已停止。",
        }
    if intent not in r:  # an intent added to the schema: the reply of its phrasing file (KeyError if none)
        return (phrasings or load()).reply(intent, lang, slots)
    return r[intent]()
