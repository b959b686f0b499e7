"""Fourth batch of phrasings (session 5), split into train / held-out on its own.

The corpus builder splits these after the templates of `templates.py`, so the held-out templates of the earlier
batches stay held out: a model trained on the earlier split can be fine-tuned on this batch and still be measured
on unseen phrasings. A template here that can yield a sentence an earlier template yields is dropped by the
builder. Syntax as in `templates.py`; keys are intents or `none:<category>`.
"""

from __future__ import annotations

LATER: dict[str, dict[str, list]] = {}


def _add(intent: str, lang: str, items: list) -> None:
    LATER.setdefault(intent, {}).setdefault(lang, []).extend(items)


_add("stop", "en", [
    "stop [the motors|the wheels|your motors]", "STOP", "stop, stop, stop", "stop there [please|now|]",
    "please stop [now|right now|]", "stop immediately [please|]", "I said stop", "stop, you're going to hit it",
    "stop, there's [someone|a kid|a person] in front", "full stop", "stop right this second",
    "[robot|car], stop [now|]", "stop the vehicle", "stop driving", "stop rolling", "pull the emergency brake",
    "e-stop", "kill the motors", "don't go any further, stop", "whoa, hold up", "wait wait wait, stop",
    "no, stop", "stop, that's close enough", "halt immediately", "stop all movement [now|]", "come to a stop",
    "everything stop [now|]", "stand still [now|right now]", "hold still", "freeze, don't move"])
_add("stop", "zh", [
    "停一下", "停！", "停住别动", "给我停下来", "马上停车", "赶快停", "请立即停止", "停止前进", "停止行驶",
    "快停下来[啊|呀|]", "哎哎哎停", "停下[快点|赶紧]", "别走了停下", "紧急刹车", "立刻刹车", "急刹车",
    "前面有人，停", "快撞了，停下", "机器人停下", "小车停下来", "所有动作停止", "停止所有运动", "别再往前了",
    "停在原地", "不许动", "马上给我停", "停车停车", "先停一下", "赶紧刹住", "全都停下来"])
_add("cancel_navigation", "en", [
    "stop [the|my] navigation [please|now|]", "cancel the directions", "cancel my trip",
    "turn [navigation|directions] off",
    "I changed my mind, cancel the route", "we're not going anymore, cancel navigation", "end route guidance",
    "stop route guidance [please|]", "exit navigation mode", "remove the destination", "delete the route",
    "cancel the destination", "stop showing me the route", "I know the way, stop navigating",
    "shut off the navigation", "get rid of the route", "I don't want directions [anymore|now]",
    "cancel where we're going", "no navigation please", "stop the turn-by-turn directions"])
_add("cancel_navigation", "zh", [
    "取消导航吧", "导航不要了", "不用带我去了", "取消去那里的导航", "关闭路线引导", "结束导航吧", "停止导航吧",
    "把目的地删掉", "删除目的地", "取消这条路线", "路线取消吧", "不导航了", "退出导航模式", "导航先取消",
    "我认识路，不用导航了", "不去了，取消导航", "导航给我关了", "终止导航", "停止路线导航", "别导航了我认识路",
    "把导航关掉", "取消行程吧", "我改主意了，取消导航", "不用再导航了", "导航到此为止"])
_add("climate", "en", [
    ({"state": "on"}, "[turn|switch] on the [air con|AC] [please|now|]"),
    ({"state": "off"}, "[turn|switch] off the [air con|AC] [please|now|]"),
    ({"state": "on"}, "I'm sweating, can you turn on the AC"), ({"state": "on"}, "get the AC running"),
    ({"state": "on"}, "fire up the air conditioning"), ({"state": "on"}, "blast the AC"),
    ({"state": "on"}, "we need some AC in here"), ({"state": "off"}, "shut off the air conditioning"),
    ({"state": "off"}, "no more AC please"), ({"state": "off"}, "it's freezing, turn the AC off"),
    ({"state": "off"}, "stop the air conditioning"), ({"state": "off"}, "switch the AC off, I'm cold"),
    "can you turn the [AC|air con] {state}", "air con {state} please",
    "climate control {state}", "turn {state} the climate control", "set the AC {state}",
    ({"state": "on"}, "start the air conditioner please"), ({"state": "off"}, "turn the air conditioner off now")])
_add("climate", "zh", [
    ({"state": "on"}, "热死了开个空调"), ({"state": "on"}, "开一下空调吧"), ({"state": "on"}, "空调开起来"),
    ({"state": "on"}, "启动空调"), ({"state": "on"}, "车里好闷，开空调"), ({"state": "off"}, "把空调关掉吧"),
    ({"state": "off"}, "空调太冷了关了"), ({"state": "off"}, "关掉冷气"), ({"state": "off"}, "停掉空调"),
    ({"state": "off"}, "空调不用开了"), "空调给我{state}", "麻烦{state}一下空调", "能不能把空调{state}",
    "{state}车内空调", "空调帮我{state}一下"])
_add("window", "en", [
    "{action} the windows please", "could you {action} my window", "{action} the {position} windows",
    "{action} the {position} window please", "{action} the window a little", "{action} the window all the way",
    ({"action": "open"}, "I need some fresh air, open the window"), ({"action": "open"}, "open the window a crack"),
    ({"action": "close"}, "it's raining, close the windows"), ({"action": "close"}, "shut the window please"),
    ({"action": "close"}, "roll the windows up"), ({"action": "open"}, "roll the windows down"),
    ({"action": "open"}, "lower my window"), ({"action": "close"}, "raise the window"),
    ({"action": "close", "position": "all"}, "close all the windows please"),
    ({"action": "open", "position": "rear"}, "open the back windows")])
_add("window", "zh", [
    "{action}一下车窗", "麻烦{action}车窗", "把窗户{action}一点", "帮我把{position}车窗{action}",
    ({"action": "open"}, "开窗透透气"), ({"action": "open"}, "车里好闷，开下窗"), ({"action": "close"}, "下雨了，关窗"),
    ({"action": "close"}, "把窗户都关上"), ({"action": "close"}, "风太大了关窗"), ({"action": "open"}, "窗户打开一点"),
    "{position}的窗{action}一下"])
_add("set_temperature", "en", [
    "could you make it {temperature} degrees", "bump the temperature to {temperature}",
    "drop the temperature to {temperature} degrees", "I'd like it at {temperature} degrees please",
    "{zone} at {temperature} degrees please", "set the {zone} to {temperature} degrees please",
    "change it to {temperature} degrees", "{temperature} degrees in here please"])
_add("set_temperature", "zh", [
    "温度调成{temperature}度", "帮我调到{temperature}度", "把温度改成{temperature}度", "{zone}调成{temperature}度",
    "车内温度设为{temperature}度", "空调温度{temperature}度", "请把温度调到{temperature}度", "{temperature}度就好"])
_add("play_music", "en", [
    "play some {query}", "put on {query} [please|]", "I want to hear {query}", "can you play {query}",
    "play {query} for me", "let's listen to {query}", "queue up {query}", "how about some {query}"])
_add("play_music", "zh", [
    "放一首{query}", "播放{query}", "来点{query}", "我想听{query}", "给我放{query}", "放{query}的歌",
    "来一首{query}吧", "听听{query}"])
_add("media_control", "en", [
    ({"action": "pause"}, "pause [it|the song] please"), ({"action": "pause"}, "hold the music"),
    ({"action": "resume"}, "keep playing please"), ({"action": "next"}, "next song please"),
    ({"action": "next"}, "skip [it|this one]"), ({"action": "previous"}, "go back a song"),
    ({"action": "previous"}, "play the last song again"), ({"action": "volume_up"}, "louder please"),
    ({"action": "volume_up"}, "I can't hear it, turn it up"), ({"action": "volume_down"}, "quieter please"),
    ({"action": "volume_down"}, "it's too loud, turn it down")])
_add("media_control", "zh", [
    ({"action": "pause"}, "先暂停一下"), ({"action": "pause"}, "音乐停一下"), ({"action": "resume"}, "继续放吧"),
    ({"action": "next"}, "换一首"), ({"action": "next"}, "切下一首"), ({"action": "previous"}, "回到上一首"),
    ({"action": "volume_up"}, "声音开大点"), ({"action": "volume_up"}, "大声一点"),
    ({"action": "volume_down"}, "声音小一点"), ({"action": "volume_down"}, "太吵了调小点")])
_add("call", "en", [
    "give {contact} a call", "ring {contact} [please|]", "call {contact} for me", "dial {contact}",
    "I need to call {contact}", "can you phone {contact}", "get {contact} on the phone"])
_add("call", "zh", [
    "给{contact}打个电话", "打电话给{contact}", "呼叫{contact}", "拨打{contact}的电话", "帮我联系{contact}",
    "给{contact}拨个电话", "我要给{contact}打电话"])
_add("seat_heating", "en", [
    "turn {state} the seat warmer please", "{state} the seat heating", "heated seats {state} please",
    ({"state": "on"}, "my back is cold, heat my seat"), ({"state": "off"}, "turn off the heated seat, it's too warm"),
    "switch the {seat} seat heater {state}"])
_add("seat_heating", "zh", [
    "座椅加热{state}一下", "帮我{state}座椅加热", "{seat}座椅加热{state}一下", ({"state": "on"}, "座位加热打开"),
    ({"state": "off"}, "座椅加热关掉吧"), ({"state": "on"}, "屁股好凉，开座椅加热")])
_add("robot_move", "en", [
    "move {direction} [please|now|]", "go {direction} [a little|a bit|slowly]", "roll {direction} {distance} meters",
    "go {distance} meters {direction}", "head {direction} {distance} meters", "drive {direction} {distance} meters",
    "please move {direction} {distance} meters", "take {distance} meters {direction}",
    "could you go {direction} a bit", "scoot {direction}", "inch {direction}",
    ({"direction": "forward"}, "go straight[ {distance} meters|]"), ({"direction": "forward"}, "move ahead a bit"),
    ({"direction": "backward"}, "reverse[ {distance} meters|]"), ({"direction": "backward"}, "back off a little"),
    ({"direction": "left"}, "turn to your left"), ({"direction": "right"}, "turn to your right"),
    ({"direction": "left"}, "veer left"), ({"direction": "right"}, "veer right")])
_add("robot_move", "zh", [
    "往{direction}移动[一下|一点]", "向{direction}挪一下", "朝{direction}移动{distance}米",
    "往{direction}开{distance}米",
    "请向{direction}移动{distance}米", "往{direction}走一点",
    "{direction}移{distance}米", ({"direction": "forward"}, "往前走[一点|两步|]"), ({"direction": "forward"}, "直走"),
    ({"direction": "forward"}, "向前开{distance}米"), ({"direction": "backward"}, "往后退一点"),
    ({"direction": "backward"}, "倒退{distance}米"), ({"direction": "backward"}, "倒车"),
    ({"direction": "left"}, "向左转"),
    ({"direction": "right"}, "向右转"), ({"direction": "left"}, "往左拐"), ({"direction": "right"}, "往右拐")])
_add("robot_go_to", "en", [
    "please go to {location}", "go check {location}", "head over to {location} now", "move over to {location}",
    "I need you in {location}", "go and wait in {location}"])
_add("robot_go_to", "zh", [
    "请去{location}", "你先去{location}", "到{location}那里去", "去{location}看看", "移动去{location}",
    "你过去{location}", "快去{location}"])
_add("robot_pick", "en", [
    "please pick up {object}", "grab {object} please", "pick up {object} for me", "can you grab {object}",
    "get me {object} please", "go get {object}", "I want {object}, pick it up"])
_add("robot_pick", "zh", [
    "请拿起{object}", "帮我捡一下{object}", "把{object}拿给我", "去把{object}拿来", "抓一下{object}",
    "拿下{object}", "帮忙拿一下{object}"])
_add("robot_place", "en", [
    "please put {object} on {location}", "put {object} down in {location}", "leave it in {location}",
    "set it down on {location}", "place {object} in {location} please", "take it to {location}"])
_add("robot_place", "zh", [
    "请把{object}放到{location}", "{object}放在{location}就行", "把它放在{location}", "把东西放到{location}",
    "把{object}放{location}上", "放回{location}去"])
_add("navigate", "en", [
    "please navigate to {destination}", "I want to drive to {destination}", "can we go to {destination}",
    "navigation to {destination}", "let's go to {destination} now", "set navigation to {destination}"])
_add("navigate", "zh", [
    "请导航到{destination}", "导航去{destination}吧", "我要去{destination}，导航一下",
    "帮我导去{destination}", "开导航去{destination}"])
_add("none:smalltalk", "en", [
    "the navigation was fine yesterday", "I stopped at the store earlier", "don't worry about it",
    "that song is stuck in my head", "my friend called me earlier", "the window seat is the best",
    "it's hot today", "I love this song", "I'm bored", "what a long day", "you stopped too late last time",
    "cool", "alright"])
_add("none:smalltalk", "zh", [
    "昨天导航挺准的", "我刚才去过超市了", "没关系", "这首歌真好听", "我朋友刚给我打了电话", "今天好热",
    "好无聊啊", "今天真累", "上次你停得太晚了", "先这样吧", "行吧", "嗯嗯", "那个地方挺远的",
    "就这样"])
_add("none:unsupported", "en", [
    "turn on the radio", "open the sunroof", "turn on the headlights", "honk the horn",
    "fold the mirrors", "book a table for two", "what's the stock price of Apple"])
_add("none:unsupported", "zh", [
    "打开收音机", "开一下大灯", "按一下喇叭", "折叠后视镜", "订个两人的餐厅", "苹果股价多少", "帮我叫辆出租车",
    "打开氛围灯"])
